import { HostsUnreachable, type DeliveryRecord, type LoginCounts, type LoginOutcome } from '@herald/core/fate';
import type { DeliveryRecordLog, TaskStore } from '@herald/core/ports';
import { HostDown, type ExecutorRecordsClient } from './executor-records';
import { HostMerge } from './host-merge';

/** Batch records a walk reads from one host at a time (about 140 KB for batches of 4,096). */
const BATCH_PAGE = 256;
/** Login outcomes a walk reads from one host at a time. */
const LOGIN_PAGE = 4096;

const later = <T extends { at: number }>(a: T, b: T): T => (b.at > a.at ? b : a);

/**
 * The production profile's delivery records as an interface process reads
 * them (docs/recipient-truth.md, "Where"): each executor keeps its own
 * (delivery-records-<id>), and this asks them over their management
 * endpoints. A lookup asks the executor of the unit covering the position
 * first, then (no record there: a unit moved after a failover) the others;
 * a walk merges every executor's records in order, a page per host at a time.
 * What a host that does not answer held is not guessed: a lookup throws
 * HostsUnreachable naming it (when no host that answered had the record), a
 * walk names it in `unreachable`, and core's deliveryAcrossHosts decides
 * what the answer may still say. Read-only: executors write their own.
 */
export class ClusterDeliveryRecords implements DeliveryRecordLog {
  constructor(
    private readonly client: ExecutorRecordsClient,
    private readonly store: Pick<TaskStore, 'listUnits'>,
  ) {}

  recordBatch(): Promise<void> {
    return Promise.reject(new Error('an interface does not record batches: each executor records its own'));
  }

  recordLogins(): Promise<void> {
    return Promise.reject(new Error('an interface does not record logins: each executor records its own'));
  }

  async batchAt(taskId: number, position: number): Promise<DeliveryRecord | undefined> {
    const unit = (await this.store.listUnits(taskId)).find((u) => u.start <= position && position < u.end);
    const first = unit?.executorId;
    const unreachable = new Set<string>();
    if (first !== undefined && this.client.executors.includes(first)) {
      const record = await this.client.batchAt(first, taskId, position).catch(downTo(unreachable));
      if (record !== undefined) return record;
    }
    const others = this.client.executors.filter((host) => host !== first);
    const found = await Promise.all(
      others.map((host) => this.client.batchAt(host, taskId, position).catch(downTo(unreachable))),
    );
    return this.latestOr(found, unreachable);
  }

  /** Asks every executor: an outcome is kept by the one that queued the recipient, which the caller may not know. */
  async loginOf(taskId: number, uin: number): Promise<LoginOutcome | undefined> {
    const unreachable = new Set<string>();
    const found = await Promise.all(
      this.client.executors.map((host) => this.client.loginOf(host, taskId, uin).catch(downTo(unreachable))),
    );
    return this.latestOr(found, unreachable);
  }

  /** The sum of every executor's counts; unknown (HostsUnreachable) if any does not answer. */
  async loginCounts(taskId: number): Promise<LoginCounts> {
    const unreachable = new Set<string>();
    const all = await Promise.all(
      this.client.executors.map((host) => this.client.loginCounts(host, taskId).catch(downTo(unreachable))),
    );
    if (unreachable.size > 0) throw new HostsUnreachable(unreachable);
    const sum: Record<string, number> = {};
    for (const counts of all)
      for (const [kind, n] of Object.entries(counts!)) sum[kind] = (sum[kind] ?? 0) + (n as number);
    return sum as unknown as LoginCounts;
  }

  batchesFrom(taskId: number, position: number): HostMerge<DeliveryRecord, { from: number } | { after: number }> {
    const sources = this.client.executors.map((host) => ({
      host,
      first: { from: position } as { from: number } | { after: number },
      fetch: async (start: { from: number } | { after: number }) => {
        const page = await this.client.batches(host, taskId, start, BATCH_PAGE);
        return { items: page.records, next: page.after === null ? null : { after: page.after } };
      },
    }));
    return new HostMerge(sources, (r) => r.from, later);
  }

  loginsFrom(taskId: number, uin: number): HostMerge<LoginOutcome, number> {
    const sources = this.client.executors.map((host) => ({
      host,
      first: uin,
      fetch: async (from: number) => {
        const page = await this.client.logins(host, taskId, from, LOGIN_PAGE);
        return { items: page.outcomes, next: page.next };
      },
    }));
    return new HostMerge(sources, (o) => o.uin, later);
  }

  async close(): Promise<void> {}

  /** The latest of what the hosts that answered found; nothing found while some did not answer: HostsUnreachable. */
  private latestOr<T extends { at: number }>(
    found: readonly (T | undefined)[],
    unreachable: Set<string>,
  ): T | undefined {
    let latest: T | undefined;
    for (const item of found) if (item !== undefined) latest = latest === undefined ? item : later(latest, item);
    if (latest === undefined && unreachable.size > 0) throw new HostsUnreachable(unreachable);
    return latest;
  }
}

/** A failed ask's catch: records the host as unreachable (a HostDown) and answers nothing; any other error stands. */
function downTo(unreachable: Set<string>) {
  return (error: unknown): undefined => {
    if (!(error instanceof HostDown)) throw error;
    unreachable.add(error.host);
    return undefined;
  };
}
