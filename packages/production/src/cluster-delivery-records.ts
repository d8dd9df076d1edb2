import {
  HostsUnreachable,
  PurgeIncomplete,
  type DeliveryRecord,
  type LoginCounts,
  type LoginOutcome,
} from '@herald/core/fate';
import type { DeliveryRecordLog, PurgedRecords, TaskStore } from '@herald/core/ports';
import type { ExecutionUnit } from '@herald/core/task';
import { HostDown, type ExecutorRecordsClient } from './executor-records';
import { HostMerge } from './host-merge';
import { addCounts, bucketRuns, countsByBucket, noCounts, splitBuckets, type BucketRun } from './login-merge';
import type { BucketTable } from './login-wire';

/** Batch records a walk reads from one host at a time (about 140 KB for batches of 4,096). */
const BATCH_PAGE = 256;
/** Login outcomes a walk reads from one host at a time. */
const LOGIN_PAGE = 4096;
/** Merged buckets remembered (about 200 bytes each): as many as one task's uin space holds. */
const MERGED_KEPT = 65_536;

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
 * what the answer may still say. Read-only but for purgeTask, which asks
 * every executor to remove a task's records: executors write their own.
 */
export class ClusterDeliveryRecords implements DeliveryRecordLog {
  /** Counts of buckets merged across hosts, by `task:bucket`, with the signature of what the hosts held then. */
  private readonly merged = new Map<string, { signature: string; counts: LoginCounts }>();

  constructor(
    private readonly client: ExecutorRecordsClient,
    private readonly store: Pick<TaskStore, 'listUnits'>,
  ) {}

  recordBatch(): Promise<void> {
    return Promise.reject(new Error('an interface does not record batches: each executor records its own'));
  }

  recordBatches(): Promise<void> {
    return Promise.reject(new Error('an interface does not record batches: each executor records its own'));
  }

  recordLogins(): Promise<void> {
    return Promise.reject(new Error('an interface does not record logins: each executor records its own'));
  }

  /** `units`: the task's units as the caller read them (else read here), to ask the unit's executor first. */
  async batchAt(
    taskId: number,
    position: number,
    units?: readonly Pick<ExecutionUnit, 'start' | 'end' | 'executorId'>[],
  ): Promise<DeliveryRecord | undefined> {
    const unit = (units ?? (await this.store.listUnits(taskId))).find((u) => u.start <= position && position < u.end);
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

  /**
   * Each recipient's latest outcome counted once, as loginOf answers it.
   * A recipient may have an outcome on two executors: a unit moved after a
   * failover, and a batch the first executor queued was queued again by the
   * next one. Which executors share recipients is read from the outcomes
   * themselves, never guessed from the batch records: an executor killed
   * after queuing a batch and before writing its record (records are
   * written a few batches at a time) holds that batch's offline recipients
   * with no record to show for them. So every executor's counts by bucket of
   * 2^16 uins are read (one request each); a bucket one executor holds alone
   * is added as counted, and only the buckets several hold are merged by uin
   * (their outcomes read in a compact form, the latest counted, the merged
   * count kept while the hosts' counts and writes of it stay the same).
   * Without a moved unit the shared buckets are the few at the boundaries
   * between units on different executors. Unknown (HostsUnreachable) if any
   * executor does not answer.
   */
  loginCounts(taskId: number): Promise<LoginCounts> {
    return this.countsOnceAcross(taskId, this.client.executors);
  }

  /**
   * The hosts' outcomes, each uin's latest counted: the buckets one host holds
   * as counted, the shared ones merged (or as merged before, when the hosts'
   * counts and writes of them are the same: a host's writes of a bucket only
   * grow, so a signature seen again means nothing changed).
   */
  private async countsOnceAcross(taskId: number, hosts: readonly string[]): Promise<LoginCounts> {
    const unreachable = new Set<string>();
    const tables = await Promise.all(
      hosts.map((host) => this.client.loginBuckets(host, taskId).catch(downTo(unreachable))),
    );
    if (unreachable.size > 0) throw new HostsUnreachable(unreachable);
    const { alone: total, shared } = splitBuckets(hosts, tables as BucketTable[]);
    const toMerge = shared.filter((bucket) => {
      const known = this.merged.get(`${taskId}:${bucket.bucket}`);
      if (known?.signature !== bucket.signature) return true;
      addCounts(total, known.counts);
      return false;
    });
    for (const run of bucketRuns(toMerge)) addCounts(total, await this.mergeRun(taskId, hosts, run));
    return total;
  }

  /** A run of shared buckets merged, a page of whole buckets per holder at a time, each bucket's count remembered. */
  private async mergeRun(taskId: number, hosts: readonly string[], run: BucketRun): Promise<LoginCounts> {
    const total = noCounts();
    for (let done = 0; done < run.buckets.length;) {
      const first = run.buckets[done]!.bucket;
      const asked = run.buckets.length - done;
      const unreachable = new Set<string>();
      const pages = await Promise.all(
        run.holders.map((h) => this.client.bucketOutcomes(hosts[h]!, taskId, first, asked).catch(downTo(unreachable))),
      );
      if (unreachable.size > 0) throw new HostsUnreachable(unreachable);
      const covered = Math.min(...pages.map((page) => page!.buckets));
      countsByBucket(
        pages.map((page) => page!.outcomes),
        first,
        covered,
      ).forEach((counts, i) => {
        this.remember(`${taskId}:${first + i}`, run.buckets[done + i]!.signature, counts);
        addCounts(total, counts);
      });
      done += covered;
    }
    return total;
  }

  private remember(key: string, signature: string, counts: LoginCounts): void {
    this.merged.delete(key);
    if (this.merged.size >= MERGED_KEPT) this.merged.delete(this.merged.keys().next().value!);
    this.merged.set(key, { signature, counts });
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
    return this.loginsFromHosts(taskId, uin, this.client.executors);
  }

  private loginsFromHosts(taskId: number, uin: number, hosts: readonly string[]): HostMerge<LoginOutcome, number> {
    const sources = hosts.map((host) => ({
      host,
      first: uin,
      fetch: async (from: number) => {
        const page = await this.client.logins(host, taskId, from, LOGIN_PAGE);
        return { items: page.outcomes, next: page.next };
      },
    }));
    return new HostMerge(sources, (o) => o.uin, later);
  }

  /**
   * Asks every executor to remove its records of the task, all at once; the
   * total removed. Any that does not answer: PurgeIncomplete (a
   * HostsUnreachable) naming it, with what the others removed, after they
   * purged (a purge asked again finishes the job).
   */
  async purgeTask(taskId: number): Promise<PurgedRecords> {
    const unreachable = new Set<string>();
    const purged = await Promise.all(
      this.client.executors.map((host) => this.client.purge(host, taskId).catch(downTo(unreachable))),
    );
    // A task recorded again after its purge counts its writes from 0: nothing merged before may stand for it.
    for (const key of [...this.merged.keys()]) if (key.startsWith(`${taskId}:`)) this.merged.delete(key);
    const total = purged.reduce<PurgedRecords>(
      (sum, p) => (p === undefined ? sum : { batches: sum.batches + p.batches, logins: sum.logins + p.logins }),
      { batches: 0, logins: 0 },
    );
    if (unreachable.size > 0) throw new PurgeIncomplete(unreachable, total);
    return total;
  }

  async close(): Promise<void> {
    this.client.close();
  }

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
