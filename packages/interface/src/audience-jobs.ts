/**
 * Audience jobs: a list being built from an audience source, in the
 * background, with its progress readable while it runs
 * (POST/GET /api/v1/audiences, docs/api.md; docs/audience-sources.md).
 *
 * A job streams its source into a list file (importFromSource), then stores
 * the list's metadata (TaskStore.putList), and only then is it `done`: a
 * task can be created on its list from that moment, never before. A job that
 * fails (the source failed half way, too many bad rows, an empty audience)
 * or is cancelled leaves no file and no metadata.
 *
 * Jobs live in the interface process that accepted them (their list, once
 * done, is in the task store like any list: GET /api/v1/lists/:id from any
 * process). Finished jobs stay readable for `audiences.jobRetentionMs`; at
 * most `audiences.maxRunningJobs` run at once, more answer 503 UNAVAILABLE
 * (retriable). Closing the server aborts the running ones.
 */
import { importFromSource, type FollowerCopies, type ListRepository, type SourceImportReport } from '@herald/audience';
import { ErrorCodes, HeraldError, isHeraldError, NotFoundError } from '@herald/core';
import type {
  AttributeIndex,
  AudienceSource,
  BadRowCounts,
  Clock,
  FollowerStore,
  Logger,
  TaskStore,
} from '@herald/core/ports';
import type { AudiencesConfig } from '@herald/core/config';
import type { ListMeta } from '@herald/core/task';
import type { TableSourceSpec } from '@herald/core/audience';

/**
 * The audience sources a deployment offers (each optional: a kind without
 * its adapter is refused with VALIDATION_FAILED). The production profile
 * wires the MySQL adapters, the embedded one the LevelDB ones.
 */
export interface AudienceSourceDeps {
  /** `followers`: the followers of the job's account. */
  followers?: FollowerStore;
  /** `targeting`: a query over the users' attribute bitsets. */
  attributes?: AttributeIndex;
  /** `table` (admin only): rows of a MySQL table. */
  tables?: { source(spec: TableSourceSpec, options?: { batchSize?: number }): AudienceSource };
  /**
   * Local copies of big accounts' followers (docs/audience-sources.md, "Local
   * copies"): a followers job reads an account's copy when it has one (checked
   * by sampling, else the source), and a job that read at least
   * `audiences.followerCopyThreshold` followers from the source leaves one.
   */
  followerCopies?: FollowerCopies;
}

export const JOB_STATES = ['running', 'done', 'failed', 'cancelled'] as const;
export type JobState = (typeof JOB_STATES)[number];

/** A job as the API answers it. */
export interface AudienceJob {
  id: string;
  accountId: string;
  /** The source's kind and what it reads (the query, the table...). */
  source: Record<string, unknown> & { kind: string };
  state: JobState;
  /** The list the job writes; it exists (GET /api/v1/lists/:id) once the job is done. */
  listId: string;
  createdAt: number;
  finishedAt: number | null;
  /** Counts so far: valid uins written and bad rows by reason. */
  progress: { uins: number; bad: BadRowCounts };
  /** When done: the stored list. */
  list?: ListMeta;
  /** When done: what the source gave, bad rows by reason. */
  report?: Pick<SourceImportReport, 'valid' | 'bad'>;
  /** When failed: why, as an API error. */
  error?: { code: string; message: string; details?: Record<string, unknown> };
}

interface Running {
  job: AudienceJob;
  controller: AbortController;
  done: Promise<void>;
}

/** The abort reason of a cancel, told apart from a shutdown. */
class Cancelled extends Error {}

export const JOB_ID_PATTERN = /^a_[a-z0-9_]{1,64}$/;
/** At most this many finished jobs are kept, whatever their age. */
const MAX_FINISHED = 1000;

export class AudienceJobs {
  private readonly jobs = new Map<string, Running>();

  constructor(
    private readonly deps: {
      lists: ListRepository;
      store: TaskStore;
      clock: Clock;
      logger: Logger;
      config: AudiencesConfig;
      uinLimit: number;
    },
  ) {}

  /**
   * Starts a job; UNAVAILABLE (retriable) when `maxRunningJobs` already run.
   * `afterDone` runs once the list is stored, before the job shows done (a
   * failure there is logged; the job is done all the same: its list is good).
   */
  start(
    accountId: string,
    source: AudienceSource,
    maxBadRatio?: number,
    afterDone?: (meta: ListMeta) => Promise<void>,
  ): AudienceJob {
    this.prune();
    if (this.running() >= this.deps.config.maxRunningJobs) {
      throw new HeraldError(
        ErrorCodes.UNAVAILABLE,
        `${this.deps.config.maxRunningJobs} audience jobs are running in this process (audiences.maxRunningJobs): try again when one ends`,
        {
          retriable: true,
          details: { maxRunningJobs: this.deps.config.maxRunningJobs },
        },
      );
    }
    const { lists, store, clock, logger } = this.deps;
    const job: AudienceJob = {
      id: lists.newId('a'),
      accountId,
      source: { kind: source.kind, ...source.description },
      state: 'running',
      listId: lists.newId(),
      createdAt: clock.now(),
      finishedAt: null,
      progress: { uins: 0, bad: {} },
    };
    const controller = new AbortController();
    const finish = (state: JobState, fields: Partial<AudienceJob> = {}) =>
      Object.assign(job, { state, finishedAt: clock.now(), ...fields });
    const done = (async () => {
      try {
        const { meta, report } = await importFromSource(lists, source, {
          accountId,
          uinLimit: this.deps.uinLimit,
          listId: job.listId,
          signal: controller.signal,
          ...(maxBadRatio === undefined ? {} : { maxBadRatio }),
          onProgress: (progress) => {
            job.progress = progress;
          },
        });
        try {
          await store.putList(meta);
        } catch (error) {
          await lists.remove(meta.id).catch(() => undefined);
          throw error;
        }
        // Before the job shows done, so whoever sees it done sees what followed too.
        await afterDone?.(meta).catch((error: unknown) =>
          logger.warn('audience job: the step after its list failed', { job: job.id, error: String(error) }),
        );
        finish('done', { list: meta, report: { valid: report.valid, bad: report.bad } });
        logger.info('audience job done', {
          job: job.id,
          account: accountId,
          source: source.kind,
          list: meta.id,
          count: meta.count,
          bad: report.bad.total,
        });
      } catch (error) {
        if (controller.signal.aborted && controller.signal.reason instanceof Cancelled) {
          finish('cancelled');
          return;
        }
        const apiError = isHeraldError(error)
          ? error.toJSON()
          : { code: ErrorCodes.INTERNAL, message: 'internal error' };
        finish('failed', { error: apiError });
        const level =
          isHeraldError(error) && error.code !== ErrorCodes.AUDIENCE_SOURCE_FAILED && error.code !== ErrorCodes.INTERNAL
            ? 'info'
            : 'error';
        logger[level]('audience job failed', {
          job: job.id,
          account: accountId,
          source: source.kind,
          code: apiError.code,
          error: String(error),
        });
      }
    })();
    this.jobs.set(job.id, { job, controller, done });
    return job;
  }

  /** The job, or AUDIENCE_JOB_NOT_FOUND (also for an id that is not a job id). */
  get(id: string): AudienceJob {
    this.prune();
    const found = JOB_ID_PATTERN.test(id) ? this.jobs.get(id) : undefined;
    if (found === undefined) throw jobNotFound(id);
    return found.job;
  }

  /** The jobs of these accounts ('all': every one), newest first. */
  list(accounts: readonly string[] | 'all', filter: { accountId?: string; state?: JobState } = {}): AudienceJob[] {
    this.prune();
    return [...this.jobs.values()]
      .map((running) => running.job)
      .filter(
        (job) =>
          (accounts === 'all' || accounts.includes(job.accountId)) &&
          (filter.accountId === undefined || job.accountId === filter.accountId) &&
          (filter.state === undefined || job.state === filter.state),
      )
      .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
  }

  /** Cancels a running job and waits until it has let go of its source and removed its file; a finished job is answered as it is. */
  async cancel(id: string): Promise<AudienceJob> {
    const job = this.get(id);
    const running = this.jobs.get(job.id)!;
    if (job.state === 'running') {
      running.controller.abort(new Cancelled('cancelled'));
      await running.done;
    }
    return job;
  }

  /** Aborts every running job (the server is closing) and waits for them to clean up. */
  async close(): Promise<void> {
    const running = [...this.jobs.values()].filter((r) => r.job.state === 'running');
    for (const r of running)
      r.controller.abort(
        new HeraldError(ErrorCodes.UNAVAILABLE, 'the interface process is stopping', { retriable: true }),
      );
    await Promise.allSettled(running.map((r) => r.done));
  }

  private running(): number {
    let n = 0;
    for (const { job } of this.jobs.values()) if (job.state === 'running') n++;
    return n;
  }

  /** Drops finished jobs past their retention, and the oldest beyond MAX_FINISHED. */
  private prune(): void {
    const expired = this.deps.clock.now() - this.deps.config.jobRetentionMs;
    const finished: AudienceJob[] = [];
    for (const [id, { job }] of this.jobs) {
      if (job.finishedAt === null) continue;
      if (job.finishedAt <= expired) this.jobs.delete(id);
      else finished.push(job);
    }
    if (finished.length > MAX_FINISHED) {
      finished.sort((a, b) => a.finishedAt! - b.finishedAt!);
      for (const job of finished.slice(0, finished.length - MAX_FINISHED)) this.jobs.delete(job.id);
    }
  }
}

export function jobNotFound(id: string): NotFoundError {
  const shown = String(id).slice(0, 80);
  return new NotFoundError(
    'AUDIENCE_JOB_NOT_FOUND',
    `audience job ${shown} does not exist (jobs live in the interface process that started them, for audiences.jobRetentionMs after they end)`,
    { jobId: shown },
  );
}
