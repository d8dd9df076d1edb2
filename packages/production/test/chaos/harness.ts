import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { Kafka, logLevel } from 'kafkajs';
import { encodeRecipientList } from '@herald/core/recipient-list';
import type { ListMeta, Task } from '@herald/core/task';
import { syntheticAudience } from '@herald/audience';
import {
  authHeaders,
  makeTempDir,
  PrivateMariaDb,
  ProcessCluster,
  TestKafka,
  TestZooKeeper,
  waitFor,
  type TempDir,
} from '@herald/testing';
import { expectedFor, judge, readLeft, type Expected, type TaskVerdict } from './checks';
import { Nemesis, type FaultRecord } from './nemesis';
import { describeFault, FAULT_KINDS, planFaults, type FaultKind, type PlannedFault } from './schedule';

/**
 * The chaos run: a production-profile cluster of real processes (2
 * interfaces, 3 schedulers on APTA, 2 dispatchers, 2 executors, 2
 * controllers, 1 presence agent) on a MariaDB, a ZooKeeper and a Kafka broker
 * of the run's own, broadcasting one audience split over a few tasks while the
 * nemesis (nemesis.ts) works through a fault schedule planned from a seed
 * (schedule.ts). At the end every task is checked (checks.ts). The CI test
 * (chaos.test.ts) and `npm run chaos` (bench/chaos.js) both run this.
 */
export interface ChaosOptions {
  seed: number;
  /** Recipients in all, split evenly over the tasks. */
  recipients: number;
  tasks: number;
  /** Faults planned; the nemesis stops early when every task has ended. */
  faults: number;
  kinds: readonly FaultKind[];
  gapMs: [number, number];
  durationMs: [number, number];
  batchSize: number;
  unitSize: number;
  /** Tasks sending at once (scheduler.slots): fewer makes the broadcast span more of the schedule. */
  slots: number;
  /** How long the tasks may take to end once the nemesis is done. */
  finishTimeoutMs: number;
  /**
   * Recipients per second each task is sent at (docs/scheduling.md, "Pacing"); none: as fast as the
   * cluster goes. A paced broadcast spans the fault schedule on a fast machine as on a slow one.
   */
  speed?: number;
  log: (line: string) => void;
}

export const CHAOS_DEFAULTS: Omit<ChaosOptions, 'seed' | 'log'> = {
  recipients: 1_000_000,
  tasks: 3,
  faults: 30,
  kinds: FAULT_KINDS,
  gapMs: [1500, 4000],
  durationMs: [1500, 4000],
  batchSize: 1000,
  unitSize: 20_000,
  slots: 1,
  finishTimeoutMs: 300_000,
};

export interface ChaosSummary {
  seed: number;
  options: Omit<ChaosOptions, 'log'>;
  plan: PlannedFault[];
  faults: FaultRecord[];
  /** Faults injected, by kind. */
  byKind: Record<string, number>;
  tasks: TaskVerdict[];
  lost: number;
  repeats: number;
  problems: string[];
  seconds: number;
  /** The cluster's logs, kept when a check failed. */
  logs?: string;
}

const APTA = { helloIntervalMs: 100, deadIntervalMs: 600, silencePeriodMs: 600 };
const SHAPE = { interfaces: 2, schedulers: 3, dispatchers: 2, executors: 2, controllers: 2, presence: 1, apta: APTA };
const FINAL = ['COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'];
const RANGE_BITS = 12;

/** A ProcessCluster whose own Kafka clients (logins, presence offsets) use the run's broker. */
class ChaosCluster extends ProcessCluster {
  constructor(
    dir: string,
    names: { database: string; zkRoot: string; topicPrefix: string },
    private readonly brokers: string[],
  ) {
    super(dir, SHAPE, names);
  }

  override kafka(): Kafka {
    return new Kafka({
      clientId: `chaos-${this.names.topicPrefix}`,
      brokers: this.brokers,
      logLevel: logLevel.NOTHING,
    });
  }
}

/** The fault schedule a seed gives for these options (no servers needed): for printing a replay. */
export function chaosPlan(
  options: Pick<ChaosOptions, 'seed' | 'faults' | 'kinds' | 'gapMs' | 'durationMs'>,
): PlannedFault[] {
  const ids = (tier: string, n: number) => Array.from({ length: n }, (_, i) => `${tier}-${i + 1}`);
  return planFaults({
    seed: options.seed,
    count: options.faults,
    kinds: options.kinds,
    processes: {
      interface: ids('interface', SHAPE.interfaces),
      scheduler: ids('scheduler', SHAPE.schedulers),
      dispatcher: ids('dispatcher', SHAPE.dispatchers),
      executor: ids('executor', SHAPE.executors),
      controller: ids('controller', SHAPE.controllers),
    },
    gapMs: options.gapMs,
    durationMs: options.durationMs,
    settleMs: 3000,
  });
}

export async function runChaos(options: ChaosOptions): Promise<ChaosSummary> {
  const began = Date.now();
  const { log } = options;
  const plan = chaosPlan(options);
  log(
    `seed ${options.seed} (replay: HERALD_CHAOS_SEED=${options.seed}); ${options.recipients} recipients in ${options.tasks} tasks; ${plan.length} faults planned:`,
  );
  for (const f of plan) log(`  ${describeFault(f)}`);

  const tag = `${options.seed.toString(16)}${Date.now().toString(36)}`.slice(-10);
  const names = { database: `herald_chaos_${tag}`, zkRoot: `/herald-chaos-${tag}`, topicPrefix: `chaos${tag}.` };
  let dir: TempDir | undefined;
  let mariadb: PrivateMariaDb | undefined;
  let zookeeper: TestZooKeeper | undefined;
  let kafka: TestKafka | undefined;
  let cluster: ChaosCluster | undefined;
  try {
    // Servers of the run's own: the nemesis restarts and freezes them, which must not touch anyone else's.
    [mariadb, zookeeper, kafka, dir] = await Promise.all([
      PrivateMariaDb.start(),
      TestZooKeeper.start(),
      TestKafka.start(),
      makeTempDir('herald-chaos-'),
    ]);
    log(
      `servers: MariaDB ${mariadb.url}, ZooKeeper ${zookeeper.connectionString}, Kafka ${kafka.brokers.join(',')}; dir ${dir.path}`,
    );
    // configure() reads these for its defaults before the overrides below; outside jest nobody has set them.
    process.env.HERALD_TEST_MYSQL_URL ??= mariadb.url;
    process.env.HERALD_TEST_ZK ??= zookeeper.connectionString;
    process.env.HERALD_TEST_KAFKA_BROKERS ??= kafka.brokers.join(',');
    cluster = new ChaosCluster(dir.path, names, kafka.brokers);
    const audience = syntheticAudience({
      recipients: options.recipients,
      onlineFraction: 0.3,
      uinLimit: 2 ** 24,
      seed: options.seed,
    });
    await cluster.configure({
      mysql: { url: mariadb.url, database: names.database },
      zookeeper: { connectionString: zookeeper.connectionString, root: names.zkRoot, sessionTimeoutMs: 6000 },
      kafka: { brokers: kafka.brokers, topicPrefix: names.topicPrefix },
      dispatcher: { batchSize: options.batchSize, unitSize: options.unitSize },
      offline: { rangeBits: RANGE_BITS },
      scheduler: { tickMs: 100, unitStallMs: 2000, slots: options.slots },
      ...(options.speed === undefined ? {} : { accounts: { defaultLimits: { maxSpeed: options.speed } } }),
    });
    await cluster.keysAndSchema();
    await cluster.startAll();
    await cluster.publishOnline(audience.online);
    await cluster.waitForPresence();
    const ring = `"members":${JSON.stringify(cluster.ids('scheduler'))}`;
    await waitFor(
      () =>
        cluster!.processes
          .filter((p) => p.tier !== 'controller' && p.tier !== 'presence')
          .every((p) => p.output.includes(ring)),
      {
        timeoutMs: 60_000,
        message: 'not every process reached the ring of three schedulers',
      },
    );
    log(`cluster up (${cluster.processes.length} processes) after ${((Date.now() - began) / 1000).toFixed(1)} s`);

    const urls = cluster.httpPorts.map((port) => `http://127.0.0.1:${port}`);
    /** The API through whichever interface answers: the nemesis kills interfaces too. */
    const api = async <T>(path: string, init?: RequestInit): Promise<T> => {
      let last: unknown;
      for (const url of urls) {
        try {
          const response = await fetch(url + path, {
            ...init,
            headers: { ...init?.headers, ...authHeaders() },
            signal: AbortSignal.timeout(5000),
          });
          if (response.ok) return (await response.json()) as T;
          const refused = new Error(`${init?.method ?? 'GET'} ${path}: ${response.status} ${await response.text()}`);
          if (response.status < 500) throw Object.assign(refused, { final: true });
          last = refused;
        } catch (error) {
          if ((error as { final?: boolean }).final) throw error;
          last = error;
        }
      }
      throw last;
    };
    const binary = { 'content-type': 'application/octet-stream' };
    await api('/api/v1/blacklists/global', {
      method: 'PUT',
      headers: binary,
      body: encodeRecipientList(audience.blacklist),
    });
    const tasks: { id: number; expected: Expected }[] = [];
    const share = Math.ceil(audience.list.length / options.tasks);
    for (let t = 0; t < options.tasks; t++) {
      const slice = audience.list.subarray(t * share, (t + 1) * share);
      // An account per task: the no-resend filter works per account, so tasks do not filter each other.
      const account = `chaos_${t + 1}`;
      const list = await api<ListMeta>(`/api/v1/lists?accountId=${account}`, {
        method: 'POST',
        headers: binary,
        body: encodeRecipientList(slice),
      });
      // confirm: --full's lists are over accounts.defaultLimits.confirmAbove (docs/account-quotas.md).
      const created = await api<Task>('/api/v1/tasks', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          accountId: account,
          listId: list.id,
          content: { body: `chaos ${options.seed} ${t}` },
          confirm: list.count,
          ...(options.speed === undefined ? {} : { speed: options.speed }),
        }),
      });
      tasks.push({ id: created.id, expected: expectedFor(slice, audience.blacklist, audience.online) });
    }
    log(`tasks ${tasks.map((t) => t.id).join(', ')} created`);

    // The nemesis starts once a task is sending, so its faults hit a running broadcast.
    const latest = new Map<number, Task>();
    const sending = new Map<number, { from: number; to?: number }>();
    const poll = async () => {
      for (const { id } of tasks) {
        const task = await api<Task>(`/api/v1/tasks/${id}`);
        const previous = latest.get(id)?.state;
        latest.set(id, task);
        if (task.state !== previous)
          log(
            `task ${id} ${task.state} (delivered ${task.report.delivered}, offline ${task.report.offline}, units ${task.report.unitsDone}/${task.report.units})`,
          );
        if (task.state === 'SENDING' && !sending.has(id)) sending.set(id, { from: Date.now() });
        if (FINAL.includes(task.state) && sending.has(id)) sending.get(id)!.to ??= Date.now();
      }
      return tasks.every(({ id }) => FINAL.includes(latest.get(id)?.state ?? ''));
    };
    await waitFor(async () => (await poll(), sending.size > 0), {
      timeoutMs: 120_000,
      intervalMs: 100,
      message: 'no task started sending',
    });

    const nemesis = new Nemesis(
      plan,
      {
        cluster,
        mariadb,
        zookeeper,
        kafka,
        startArgs: (id) =>
          id.startsWith('interface-') ? ['--port', String(cluster!.httpPorts[Number(id.split('-')[1]) - 1])] : [],
      },
      (line) => log(`[t+${(nemesis.now() / 1000).toFixed(1)}s] ${line}`),
    );
    const nemesisStart = Date.now();
    const faultsDone = nemesis.run();
    let allEnded = false;
    let nemesisDone = false;
    void faultsDone.then(() => (nemesisDone = true));
    // Poll while the nemesis works; once every task has ended, no new fault is started.
    await waitFor(
      async () => {
        allEnded = await poll().catch(() => false);
        if (allEnded) nemesis.stop();
        return nemesisDone;
      },
      {
        timeoutMs: plan.reduce((end, f) => Math.max(end, f.atMs + f.durationMs), 0) + 600_000,
        intervalMs: 250,
        message: 'the nemesis did not finish its schedule',
      },
    );
    const faults = await faultsDone;
    log(
      `nemesis done: ${faults.length} faults injected${allEnded ? ' (every task had ended)' : ''}; waiting for the tasks to end`,
    );
    await waitFor(() => poll(), {
      timeoutMs: options.finishTimeoutMs,
      intervalMs: 250,
      message: 'not every task reached a final state',
    }).catch((error: Error) => log(error.message));

    // The executors' stores are read directly: stop them (the others keep running until teardown).
    for (const p of cluster.processes.filter((p) => p.tier === 'executor')) await cluster.stop(p);
    const left = await readLeft(
      join(dir.path, 'data'),
      cluster.ids('executor'),
      tasks.map((t) => t.id),
      RANGE_BITS,
    );
    const verdicts = tasks.map(({ id, expected }) => {
      const window = sending.get(id) ?? { from: Infinity };
      // A fault counts for a task when it was out at any moment of the task's sending (heal + 3 s for a restart to settle).
      const overlapping = faults.filter((f) => {
        const start = nemesisStart + f.injectedAtMs;
        const end = nemesisStart + (f.healedAtMs ?? Infinity) + 3000;
        return start <= (window.to ?? Infinity) && end >= window.from;
      }).length;
      return judge(latest.get(id)!, expected, left.get(id)!, options.batchSize, overlapping);
    });
    const byKind: Record<string, number> = {};
    for (const f of faults) byKind[f.kind] = (byKind[f.kind] ?? 0) + 1;
    const problems = [
      ...faults.filter((f) => f.error !== undefined).map((f) => `fault #${f.n} ${f.kind} ${f.target}: ${f.error}`),
      ...verdicts.flatMap((v) => v.problems),
    ];
    const summary: ChaosSummary = {
      seed: options.seed,
      options: { ...options, log: undefined } as Omit<ChaosOptions, 'log'>,
      plan,
      faults,
      byKind,
      tasks: verdicts,
      lost: verdicts.reduce((sum, v) => sum + v.lost, 0),
      repeats: verdicts.reduce((sum, v) => sum + v.repeats, 0),
      problems,
      seconds: (Date.now() - began) / 1000,
      ...(problems.length > 0 ? { logs: cluster.logs() } : {}),
    };
    if (problems.length > 0) {
      // Whole logs outlive the run's directory: the summary keeps only each process's last lines.
      const logDir = join(
        process.env.HERALD_CHAOS_LOG_DIR ?? tmpdir(),
        `herald-chaos-logs-${options.seed}-${Date.now()}`,
      );
      const files = await cluster.writeLogs(logDir);
      log(`whole logs of the ${files.length} process lives: ${logDir}`);
    }
    for (const v of verdicts) {
      log(
        `task ${v.taskId} ${v.state}: list ${v.list} = delivered ${v.delivered} + offline ${v.offline} + filtered ${v.filtered}; lost ${v.lost}, extra ${v.extra}; repeats ${v.repeats} in ${v.repeatedBatches} batches (bound ${v.repeatBound}), on several executors ${v.onSeveralExecutors}`,
      );
    }
    log(
      `seed ${options.seed}: ${faults.length} faults (${Object.entries(byKind)
        .map(([k, n]) => `${k} ${n}`)
        .join(
          ', ',
        )}), ${summary.lost} lost, ${summary.repeats} repeats, ${problems.length} problems, ${summary.seconds.toFixed(0)} s`,
    );
    return summary;
  } finally {
    await cluster?.stopAll();
    await Promise.all([mariadb?.destroy(), zookeeper?.destroy(), kafka?.stop()]);
    await dir?.remove();
  }
}
