import { randomBytes } from 'node:crypto';
import { createPool } from 'mysql2/promise';
import { encodeRecipientList } from '@herald/core/recipient-list';
import type { ListMeta, Task } from '@herald/core/task';
import type { SyntheticAudience } from '@herald/audience';
import { authHeaders, makeTempDir, ProcessCluster, sweepManagementPort, waitFor, type TempDir } from '@herald/testing';

const FINAL = ['COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'];

export interface ClusterNames {
  database: string;
  zkRoot: string;
  topicPrefix: string;
  /** The random part, for other names the test makes. */
  tag: string;
}

/** A database, znode root and topic prefix of the cluster's own, so test files never share state on the servers. */
export function uniqueNames(label: string): ClusterNames {
  const tag = randomBytes(4).toString('hex');
  return { database: `herald_${label}_${tag}`, zkRoot: `/herald-${label}-${tag}`, topicPrefix: `${label}${tag}.`, tag };
}

/** Stops every process, then drops the cluster's database and removes its directory; safe after a failed start. */
export async function tearDown(
  cluster: ProcessCluster | undefined,
  names: ClusterNames,
  dir: TempDir | undefined,
): Promise<void> {
  await cluster?.stopAll();
  const pool = createPool({ uri: process.env.HERALD_TEST_MYSQL_URL! });
  await pool.query(`DROP DATABASE IF EXISTS \`${names.database}\``);
  await pool.end();
  await dir?.remove();
}

/** Configures, keys, migrates and starts the cluster, then logs the audience's online users in and waits until presence has them all. */
export async function startWithAudience(
  cluster: ProcessCluster,
  audience: SyntheticAudience,
  extra: Record<string, unknown> = {},
): Promise<void> {
  await cluster.configure(extra);
  await cluster.keysAndSchema();
  await cluster.startAll();
  await cluster.publishOnline(audience.online);
  await cluster.waitForPresence();
}

async function api<T>(cluster: ProcessCluster, path: string, init?: RequestInit): Promise<T> {
  return (await (
    await fetch(cluster.url + path, { ...init, headers: { ...init?.headers, ...authHeaders() } })
  ).json()) as T;
}

/**
 * Uploads the audience's blacklist and list, creates a task, waits until it
 * is sending with some progress, runs `outage` (a server restart), and waits
 * for the task to end. Returns the task as it ended and its state when the
 * outage began, so a test can check the outage really hit a running broadcast.
 */
export async function broadcastThroughOutage(
  cluster: ProcessCluster,
  audience: SyntheticAudience,
  /** Given the task's id. */
  outage: (taskId: number) => Promise<void>,
  /** More of the task's body (variants, a speed...); its content is `{ body: 'outage' }` unless given. */
  fields: Record<string, unknown> = {},
): Promise<{ task: Task; stateAtOutage: string }> {
  const binary = { 'content-type': 'application/octet-stream' };
  await api(cluster, '/api/v1/blacklists/global', {
    method: 'PUT',
    headers: binary,
    body: encodeRecipientList(audience.blacklist),
  });
  const list = await api<ListMeta>(cluster, '/api/v1/lists?accountId=acme', {
    method: 'POST',
    headers: binary,
    body: encodeRecipientList(audience.list),
  });
  const created = await api<Task>(cluster, '/api/v1/tasks', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ accountId: 'acme', listId: list.id, content: { body: 'outage' }, ...fields }),
  });

  let task: Task | undefined;
  await waitFor(
    async () => {
      task = await api<Task>(cluster, `/api/v1/tasks/${created.id}`);
      return task.state === 'SENDING' && task.report.delivered + task.report.offline > 0;
    },
    { timeoutMs: 60_000, intervalMs: 20, message: `broadcast did not start sending\n${cluster.logs()}` },
  );
  const stateAtOutage = task!.state;
  await outage(created.id);
  await waitFor(
    async () => {
      task = await api<Task>(cluster, `/api/v1/tasks/${created.id}`); // waitFor keeps polling through errors
      return FINAL.includes(task.state);
    },
    {
      timeoutMs: 180_000,
      intervalMs: 200,
      message: `broadcast did not finish after the outage (last: ${task?.state})\n${cluster.logs()}`,
    },
  );
  return { task: task!, stateAtOutage };
}

/** APTA timers for tests with real processes: a dead scheduler is noticed in 0.6 s. */
export const TEST_APTA = { helloIntervalMs: 100, deadIntervalMs: 600, silencePeriodMs: 600 };
export const THREE_SCHEDULERS = ['scheduler-1', 'scheduler-2', 'scheduler-3'];

/**
 * Whether a scheduler's log shows it claimed another's task after a ring
 * change: by the rebalance the change starts, or by its periodic sweep when
 * that ran first on the new ring (the rebalance then finds nothing left and
 * says "adopted":0). Both log "scheduler followed the ring".
 */
export function adoptedATask(schedulerLog: string): boolean {
  return /"scheduler followed the ring".*"adopted":[1-9]/.test(schedulerLog);
}

/**
 * An APTA cluster of 3 schedulers, 1 dispatcher, 2 executors, 1 interface and
 * 1 controller with the audience's online users logged in, started and
 * waited on until every process routes by the ring of three schedulers.
 */
export async function startThreeSchedulerCluster(
  label: string,
  names: ClusterNames,
  audience: SyntheticAudience,
  extra: Record<string, unknown>,
): Promise<{ dir: TempDir; cluster: ProcessCluster }> {
  const dir = await makeTempDir(`herald-${label}-`);
  const cluster = new ProcessCluster(
    dir.path,
    { interfaces: 1, schedulers: 3, dispatchers: 1, executors: 2, controllers: 1, apta: TEST_APTA },
    names,
  );
  await startWithAudience(cluster, audience, extra);
  const full = JSON.stringify(THREE_SCHEDULERS);
  await waitFor(
    () =>
      cluster.processes
        .filter((p) => p.tier !== 'controller' && p.tier !== 'presence')
        .every((p) => p.output.includes(`"members":${full}`)),
    {
      timeoutMs: 60_000,
      message: `not every process reached the ring of three schedulers\n${cluster.logs()}`,
    },
  );
  return { dir, cluster };
}

/** What a process's management endpoint says of it, with the token. */
export interface ManagedStatus {
  id: string;
  state: string;
  trafficCut: boolean;
  membership?: { apta?: boolean; state?: string };
}

/**
 * The done-when check of docs/security.md: every listening management port
 * of the cluster gets every unauthenticated request an attacker would try
 * (sweepManagementPort); every answer must be 401 or 403, and afterwards every
 * process must still run and not be draining. Returns each process's status.
 */
export async function expectManagementLocked(cluster: ProcessCluster): Promise<ManagedStatus[]> {
  // Every process running now has a listening management port (a test may have stopped some before).
  const running = cluster.processes.filter((p) => p.child.exitCode === null && p.child.signalCode === null);
  expect(running.length).toBeGreaterThan(0);
  for (const { id } of running) {
    const answers = await sweepManagementPort(cluster.managementAddress(id), id, cluster.managementToken);
    expect({ id, notRefused: answers.filter((a) => a.status !== 401 && a.status !== 403) }).toEqual({
      id,
      notRefused: [],
    });
  }
  const statuses: ManagedStatus[] = [];
  for (const p of running) {
    expect({ id: p.id, exitCode: p.child.exitCode, signal: p.child.signalCode }).toEqual({
      id: p.id,
      exitCode: null,
      signal: null,
    });
    const status = (await (
      await fetch(`http://${cluster.managementAddress(p.id)}/status`, { headers: cluster.managementHeaders() })
    ).json()) as ManagedStatus;
    expect(status).toMatchObject({ id: p.id, state: 'running', trafficCut: false });
    statuses.push(status);
  }
  return statuses;
}
