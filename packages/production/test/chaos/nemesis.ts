import type { PrivateMariaDb, ProcessCluster, ProcessHandle, TestKafka, TestZooKeeper } from '@herald/testing';
import { describeFault, type PlannedFault } from './schedule';

/** What the nemesis can hit: the cluster's processes and the servers the run owns. */
export interface FaultTargets {
  cluster: ProcessCluster;
  mariadb?: PrivateMariaDb;
  zookeeper?: TestZooKeeper;
  kafka?: TestKafka;
  /** Extra `herald start` arguments a process needs again at its restart (an interface's --port). */
  startArgs(id: string): string[];
}

/** A planned fault as it really happened, times in ms after the nemesis started. */
export interface FaultRecord extends PlannedFault {
  injectedAtMs: number;
  healedAtMs?: number;
  error?: string;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** How long a killed process is started again while its start fails (a server it needs still coming back). */
const RESTART_DEADLINE_MS = 30_000;

/**
 * Runs a planned schedule against a live cluster: each fault starts at its
 * nominal time (or as soon as an earlier fault on the same target has healed),
 * lasts its duration, and is healed. Every injection and heal is logged with
 * its time. `stop()` ends the schedule early; `run()` resolves once every
 * started fault has healed, so the cluster is whole again.
 */
export class Nemesis {
  readonly records: FaultRecord[] = [];
  private stopped = false;
  private wake: (() => void) | undefined;
  private readonly episodes = new Map<string, Promise<void>>();
  private startedAt = 0;

  constructor(
    private readonly plan: PlannedFault[],
    private readonly targets: FaultTargets,
    private readonly log: (line: string) => void,
  ) {}

  /** Ms since the nemesis started. */
  now(): number {
    return Date.now() - this.startedAt;
  }

  async run(): Promise<FaultRecord[]> {
    this.startedAt = Date.now();
    for (const fault of this.plan) {
      const wait = fault.atMs - this.now();
      if (wait > 0) await new Promise<void>((resolve) => ((this.wake = resolve), setTimeout(resolve, wait)));
      if (this.stopped) break;
      const before = this.episodes.get(fault.target) ?? Promise.resolve();
      const episode = before.then(() => this.episode(fault));
      this.episodes.set(fault.target, episode);
    }
    await Promise.all(this.episodes.values());
    return this.records;
  }

  /** No new fault after this; faults already injected are still healed. */
  stop(): void {
    this.stopped = true;
    this.wake?.();
  }

  private async episode(fault: PlannedFault): Promise<void> {
    const record: FaultRecord = { ...fault, injectedAtMs: this.now() };
    this.records.push(record);
    const late =
      record.injectedAtMs - fault.atMs > 1000
        ? ` (${((record.injectedAtMs - fault.atMs) / 1000).toFixed(1)}s late: its target was still out)`
        : '';
    this.log(`inject ${describeFault(fault)}${late}`);
    try {
      await this.inject(fault);
      await sleep(fault.durationMs);
      await this.heal(fault);
      record.healedAtMs = this.now();
      this.log(`healed #${fault.n} ${fault.kind} ${fault.target}`);
    } catch (error) {
      record.error = (error as Error).message.slice(0, 2000);
      this.log(`fault #${fault.n} ${fault.kind} ${fault.target} went wrong: ${record.error}`);
    }
  }

  private live(id: string): ProcessHandle {
    const handle = [...this.targets.cluster.processes].reverse().find((p) => p.id === id);
    if (handle === undefined) throw new Error(`no process ${id} in the cluster`);
    return handle;
  }

  private async inject(fault: PlannedFault): Promise<void> {
    const { cluster } = this.targets;
    switch (fault.kind) {
      case 'kill':
        return cluster.stop(this.live(fault.target), 'SIGKILL');
      case 'scheduler-cut':
        await cluster.admin('fault', fault.target, '--traffic-cut', 'on');
        return;
      case 'kafka-freeze':
        return this.server(this.targets.kafka, 'kafka').freeze();
      case 'mariadb-restart':
        return this.server(this.targets.mariadb, 'mariadb').stop();
      case 'zookeeper-restart':
        return this.server(this.targets.zookeeper, 'zookeeper').stop();
    }
  }

  private async heal(fault: PlannedFault): Promise<void> {
    const { cluster } = this.targets;
    switch (fault.kind) {
      case 'kill': {
        const { tier } = this.live(fault.target);
        // A start fails fast while a server it needs is out (one that cannot reach MariaDB exits
        // UNAVAILABLE): like a supervisor, start it again with backoff until RESTART_DEADLINE_MS.
        const deadline = Date.now() + RESTART_DEADLINE_MS;
        for (let attempt = 1; ; attempt++) {
          try {
            await cluster.start(tier, fault.target, this.targets.startArgs(fault.target));
            return;
          } catch (error) {
            if (Date.now() >= deadline) throw error;
            this.log(
              `restart of ${fault.target} failed (attempt ${attempt}), trying again: ${(error as Error).message.slice(0, 300)}`,
            );
            await sleep(Math.min(2000, 250 * attempt));
          }
        }
      }
      case 'scheduler-cut':
        // The heal goes through the management endpoint, which the cut does not touch.
        await cluster.admin('fault', fault.target, '--traffic-cut', 'off');
        return;
      case 'kafka-freeze':
        return this.server(this.targets.kafka, 'kafka').thaw();
      case 'mariadb-restart':
        // restart() = stop (already stopped) + launch on the same port and data.
        return this.server(this.targets.mariadb, 'mariadb').restart();
      case 'zookeeper-restart':
        return this.server(this.targets.zookeeper, 'zookeeper').restart();
    }
  }

  private server<T>(server: T | undefined, name: string): T {
    if (server === undefined) throw new Error(`the run owns no ${name} to fault`);
    return server;
  }
}
