import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPool } from 'mysql2/promise';
import { encodeRecipientList } from '@herald/core/recipient-list';
import { radixSortUint32, subtractSorted } from '@herald/core/uins';
import type { ListMeta, Task } from '@herald/core/task';
import { readDeliveryFile } from '@herald/executor';
import { LevelOfflineStore } from '@herald/store-level';
import { SharedOnlineBitmap } from '@herald/shared-bitmap';
import { authHeaders, waitFor, type NetnsCluster } from '@herald/testing';

/**
 * What the multi-host tests share (docs/multi-host.md): the hosts' layout, the
 * API calls, and readers of what each host left behind (its delivery files,
 * its offline lists, its bitmap), by host, from the host's own data directory.
 */

/** The layout: host 1 the front (interface, controller, a scheduler), hosts 2-3 scheduler + dispatcher, hosts 4-6 executor + presence agent; host 7 is added later. */
export const LAYOUT = [
  {
    processes: [
      { tier: 'scheduler', id: 'scheduler-1' },
      { tier: 'controller', id: 'controller-1' },
      { tier: 'interface', id: 'interface-1' },
    ],
  },
  {
    processes: [
      { tier: 'scheduler', id: 'scheduler-2' },
      { tier: 'dispatcher', id: 'dispatcher-1' },
    ],
  },
  {
    processes: [
      { tier: 'scheduler', id: 'scheduler-3' },
      { tier: 'dispatcher', id: 'dispatcher-2' },
    ],
  },
  ...[4, 5, 6, 7].map((host) => ({
    processes: [
      { tier: 'presence', id: `presence-${host}` },
      { tier: 'executor', id: `executor-${host - 3}` },
    ],
    later: host === 7,
  })),
];

export const FINAL = ['COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'];

export async function api<T>(cluster: NetnsCluster, path: string, init?: RequestInit): Promise<T> {
  const request = () => fetch(cluster.url + path, { ...init, headers: { ...init?.headers, ...authHeaders() } });
  const response = await request().catch((error: unknown) => {
    // A kept-alive connection the interface closed as idle while this process computed (its event loop
    // busy, the client's idle timer could not fire first): the request never reached the server. Once more.
    if ((error as { cause?: { code?: string } }).cause?.code !== 'UND_ERR_SOCKET') throw error;
    return request();
  });
  const body = (await response.json()) as T;
  if (!response.ok) throw new Error(`${init?.method ?? 'GET'} ${path}: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

const BINARY = { 'content-type': 'application/octet-stream' };

export async function putBlacklist(cluster: NetnsCluster, blacklist: Uint32Array): Promise<void> {
  await api(cluster, '/api/v1/blacklists/global', {
    method: 'PUT',
    headers: BINARY,
    body: encodeRecipientList(blacklist),
  });
}

export async function uploadList(cluster: NetnsCluster, uins: Uint32Array): Promise<string> {
  return (
    await api<ListMeta>(cluster, '/api/v1/lists?accountId=acme', {
      method: 'POST',
      headers: BINARY,
      body: encodeRecipientList(uins),
    })
  ).id;
}

export function createTask(cluster: NetnsCluster, listId: string, body: string, speed?: number): Promise<Task> {
  return api<Task>(cluster, '/api/v1/tasks', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ accountId: 'acme', listId, content: { body }, ...(speed === undefined ? {} : { speed }) }),
  });
}

export async function finished(cluster: NetnsCluster, taskId: number, timeoutMs = 180_000): Promise<Task> {
  let task: Task | undefined;
  try {
    await waitFor(
      async () => {
        task = await api<Task>(cluster, `/api/v1/tasks/${taskId}`);
        return FINAL.includes(task.state);
      },
      { timeoutMs, intervalMs: 250, message: `task ${taskId} finished` },
    );
  } catch (error) {
    // The processes' output as it is at the timeout, not as it was at the call.
    throw new Error(`${(error as Error).message} (last: ${task?.state})\n${cluster.logs()}`);
  }
  return task!;
}

export interface UnitRow {
  unitNo: number;
  start: number;
  end: number;
  executorId: string;
  state: string;
}

export async function unitsOf(cluster: NetnsCluster, taskId: number): Promise<UnitRow[]> {
  const pool = createPool({ uri: process.env.HERALD_TEST_MYSQL_URL!, database: cluster.names.database });
  try {
    const [rows] = await pool.query(
      'SELECT unit_no AS unitNo, `start`, `end`, executor_id AS executorId, state FROM execution_units WHERE task_id = ? ORDER BY unit_no',
      [taskId],
    );
    return (rows as UnitRow[]).map((r) => ({ ...r, start: Number(r.start), end: Number(r.end) }));
  } finally {
    await pool.end();
  }
}

/** The recipients of `units` of a filtered list `kept` (sorted), sorted. */
export function recipientsOf(kept: Uint32Array, units: readonly UnitRow[]): Uint32Array {
  const parts = units.map((u) => kept.subarray(u.start, u.end));
  const all = new Uint32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  return radixSortUint32(all);
}

/** The online users of `uins` by one host's bitmap file (read-only), and the rest. */
export function splitByBitmap(bitmapFile: string, uins: Uint32Array): { online: Uint32Array; offline: Uint32Array } {
  const reader = SharedOnlineBitmap.openReader(bitmapFile);
  try {
    const online = new Uint32Array(uins.length);
    const offline = new Uint32Array(uins.length);
    const n = reader.partition(uins, online, offline);
    return { online: online.slice(0, n.online), offline: offline.slice(0, n.offline) };
  } finally {
    reader.close();
  }
}

/** An executor's delivery records for a task, from its host's data directory (readable while it runs). */
export async function deliveredBy(
  cluster: NetnsCluster,
  executorId: string,
  taskId: number,
): Promise<{ uins: Uint32Array; atLogin: Uint8Array }> {
  return readDeliveryFile(join(cluster.dataDirOf(cluster.host(executorId)), 'deliveries', executorId), taskId);
}

/**
 * An executor's offline entries for a task, sorted. Read from a copy of its
 * LevelDB directory, so the executor keeps running (it holds the store's lock);
 * call it once the executor is idle. None when the host's disk is gone.
 */
export async function queuedBy(cluster: NetnsCluster, executorId: string, taskId: number): Promise<Uint32Array> {
  const from = join(cluster.dataDirOf(cluster.host(executorId)), `offline-${executorId}`);
  const copy = await mkdtemp(join(tmpdir(), 'herald-offline-copy-'));
  try {
    try {
      await cp(from, join(copy, 'db'), { recursive: true, filter: (src) => !src.endsWith('LOCK') });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Uint32Array(0);
      throw error;
    }
    const store = await LevelOfflineStore.open(join(copy, 'db'), { rangeBits: 12 });
    const queued: number[] = [];
    try {
      for await (const part of store.scanTask(taskId)) queued.push(...part);
    } finally {
      await store.close();
    }
    return radixSortUint32(Uint32Array.from(queued));
  } finally {
    await rm(copy, { recursive: true, force: true });
  }
}

/** Sorted union of several sorted arrays, repeats kept. */
export function merged(parts: readonly Uint32Array[]): Uint32Array {
  return radixSortUint32(Uint32Array.from(parts.flatMap((p) => Array.from(p))));
}

/** The values a sorted array holds more than once (once each). */
export function repeatsIn(sorted: Uint32Array): number[] {
  const out: number[] = [];
  for (let i = 1; i < sorted.length; i++)
    if (sorted[i] === sorted[i - 1] && out[out.length - 1] !== sorted[i]) out.push(sorted[i]!);
  return out;
}

/** Where `uin` is in the sorted `list` (binary search). */
export function indexIn(list: Uint32Array, uin: number): number {
  let [lo, hi] = [0, list.length];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]! < uin) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export { subtractSorted };

/** A process's management status (its host's address, the cluster's token). */
export async function statusOf<T>(cluster: NetnsCluster, id: string): Promise<T> {
  const response = await fetch(`http://${cluster.managementAddress(id)}/status`, {
    headers: cluster.managementHeaders(),
  });
  return (await response.json()) as T;
}

/** Waits until executor `id` has handled nothing for 2 s: nothing more of any task will come from it. */
export async function executorQuiet(cluster: NetnsCluster, id: string): Promise<void> {
  await waitFor(async () => (await statusOf<{ idleMs: number }>(cluster, id)).idleMs >= 2_000, {
    timeoutMs: 60_000,
    intervalMs: 200,
    message: `executor ${id} quiet`,
  });
}

/** Waits until every dispatcher holds a fresh load report from each of `executors`. */
export async function dispatchersHear(cluster: NetnsCluster, executors: readonly string[]): Promise<void> {
  await waitFor(
    async () => {
      for (const id of cluster.ids('dispatcher')) {
        const { hosts } = await statusOf<{ hosts: { executorId: string; ageMs: number }[] }>(cluster, id);
        if (!executors.every((e) => hosts.some((h) => h.executorId === e && h.ageMs < 1_000))) return false;
      }
      return true;
    },
    { timeoutMs: 60_000, intervalMs: 200, message: `every dispatcher hearing ${executors.join(', ')}` },
  );
}

/** Sorted intersection of two sorted arrays. */
export function intersect(a: Uint32Array, b: Uint32Array): Uint32Array {
  return subtractSorted(a.slice(), subtractSorted(a.slice(), b));
}

/** Process `id`'s metric lines (`name{labels} value`, no comments), from its management endpoint. */
export async function metricLines(cluster: NetnsCluster, id: string): Promise<string[]> {
  const response = await fetch(`http://${cluster.managementAddress(id)}/metrics`, {
    headers: cluster.managementHeaders(),
  });
  return (await response.text()).split('\n').filter((l) => l !== '' && !l.startsWith('#'));
}

/** The sum of process `id`'s metric lines named `name` (any labels); 0 when none. */
export async function metricOf(cluster: NetnsCluster, id: string, name: string): Promise<number> {
  return (await metricLines(cluster, id))
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);
}

/**
 * Waits until each executor has walked (or dropped, its queue full) the offline list of every user its host's
 * presence agent has handed it: a login storm's walks (publishOnline of an audience) queue ahead of any later
 * login, about 2,000 users a second per executor here and a quarter of that on a slow machine.
 */
export async function loginsWalked(cluster: NetnsCluster, executors: readonly string[]): Promise<void> {
  let seen = 'nothing read';
  const walked = waitFor(
    async () => {
      const states = await Promise.all(
        executors.map(async (id) => {
          const agent = `presence-${cluster.host(id)}`;
          const [handed, noticesDropped, walks, queued] = await Promise.all([
            metricOf(cluster, agent, 'herald_presence_logins_total'),
            metricOf(cluster, agent, 'herald_presence_notices_dropped_total'),
            metricOf(cluster, id, 'herald_executor_login_walks_total'),
            metricOf(cluster, id, 'herald_executor_login_queue'),
          ]);
          // A dropped notice's users never reach the executor: then only its queue can be awaited.
          return { id, handed, walks, queued, done: queued === 0 && (walks >= handed || noticesDropped > 0) };
        }),
      );
      seen = states.map((s) => `${s.id} ${s.walks} of ${s.handed} walked, ${s.queued} queued`).join('; ');
      return states.every((s) => s.done);
    },
    { timeoutMs: 600_000, intervalMs: 500, message: `the login walks queued on ${executors.join(', ')} done` },
  );
  await walked.catch((error: unknown) => {
    throw new Error(`${(error as Error).message}; at the last check ${seen}`, { cause: error });
  });
}
