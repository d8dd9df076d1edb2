import type { IncomingMessage } from 'node:http';
import { encodeDeliveryRecord, type DeliveryRecord, type LoginOutcome } from '@herald/core/fate';
import type { DeliveryRecordLog, LoginBucketLog } from '@herald/core/ports';
import { BUCKET_SPAN, encodeBucketOutcomes, encodeBucketTable } from './login-wire';
import { readJsonBody, type Refusal } from './management-guard';

/** Records a page of GET /records/batches holds at most (each about 550 bytes for a 4,096-recipient batch). */
export const MAX_BATCH_PAGE = 1024;
/** Outcomes a page of GET /records/logins holds at most. */
export const MAX_LOGIN_PAGE = 16_384;

type Route = (req: IncomingMessage) => Promise<[number, unknown]>;

/** A batch record on the wire: its first position and core's encoding of it, base64 (the task is the query's). */
export interface WireRecord {
  from: number;
  value: string;
}

export function toWire(record: DeliveryRecord): WireRecord {
  return { from: record.from, value: Buffer.from(encodeDeliveryRecord(record)).toString('base64') };
}

/**
 * An executor's delivery records on its management endpoint
 * (docs/recipient-truth.md, "Where"): what the interface processes read to
 * answer a recipient's fate, the delivery report and the funnel on the
 * production profile, where each executor keeps its own. Bounded pages, the
 * same token as every management route; the one write is the purge of a
 * task's records.
 *
 *   GET /records/batch?task=T&position=P        {record: WireRecord | null}: the record holding P
 *   GET /records/batches?task=T&from=P&limit=N  {records: [...], after: F | null}: in position order from the one
 *                                               holding P; `after` (the last record's first position) continues
 *   GET /records/batches?task=T&after=F&limit=N the records whose first position is after F
 *   GET /records/login?task=T&uin=U             {outcome: {uin, outcome, at} | null}
 *   GET /records/logins?task=T&from=U&limit=N   {outcomes: [...], next: U' | null}: ascending uins from U
 *   GET /records/login-counts?task=T            {counts: {delivered, expired, over_frequency}}
 *   GET /records/login-buckets?task=T           {buckets: n, table: base64}: the outcomes' counts by bucket of 2^16
 *                                               uins, at most 65,536 buckets (login-wire.ts has the form)
 *   GET /records/bucket-outcomes?task=T&bucket=B&buckets=N
 *                                               {outcomes: n, buckets: k, columns: base64}: the outcomes of the
 *                                               whole buckets [B, B + k), k <= N (default 1) as many as fit in a
 *                                               page of 65,536 outcomes (one bucket always does), ascending uins
 *   POST /records/purge {"task": T}             {task, batches, logins}: removes the task's records (a task that is
 *                                               over: docs/recipient-truth.md, "Purging a task's records")
 *
 * A process that keeps no records (any tier but an executor) answers 404.
 */
export function recordRoutes(records: DeliveryRecordLog | undefined): Record<string, Route> {
  const route =
    (fields: readonly string[], answer: (log: DeliveryRecordLog, query: Query) => Promise<[number, unknown]>): Route =>
    async (req) => {
      if (records === undefined)
        return [404, { code: 'NOT_FOUND', message: 'this process keeps no delivery records (only executors do)' }];
      const query = readQuery(req, fields);
      return 'refusal' in query ? query.refusal : answer(records, query);
    };
  return {
    'GET /records/batch': route(['task', 'position'], async (log, q) => {
      const record = await log.batchAt(q.task!, q.position!);
      return [200, { record: record === undefined ? null : toWire(record) }];
    }),
    'GET /records/batches': route(['task', 'from?', 'after?', 'limit?'], async (log, q) => {
      if ((q.from === undefined) === (q.after === undefined)) return bad('from', 'give one of from and after');
      const limit = q.limit ?? 256;
      if (limit > MAX_BATCH_PAGE) return bad('limit', `limit must be at most ${MAX_BATCH_PAGE}`);
      // after=F: the walk from F + 1 starts with the record holding it, which may begin at or before F: skipped.
      const start = q.from ?? q.after! + 1;
      const page: WireRecord[] = [];
      for await (const record of log.batchesFrom(q.task!, start)) {
        if (q.after !== undefined && record.from <= q.after) continue;
        page.push(toWire(record));
        if (page.length === limit) break;
      }
      return [200, { records: page, after: page.length < limit ? null : page[page.length - 1]!.from }];
    }),
    'GET /records/login': route(['task', 'uin'], async (log, q) => {
      const outcome = await log.loginOf(q.task!, q.uin!);
      return [200, { outcome: outcome === undefined ? null : outcomeOnWire(outcome) }];
    }),
    'GET /records/logins': route(['task', 'from', 'limit?'], async (log, q) => {
      const limit = q.limit ?? 4096;
      if (limit > MAX_LOGIN_PAGE) return bad('limit', `limit must be at most ${MAX_LOGIN_PAGE}`);
      const page: Array<Omit<LoginOutcome, 'taskId'>> = [];
      for await (const outcome of log.loginsFrom(q.task!, q.from!)) {
        page.push(outcomeOnWire(outcome));
        if (page.length === limit) break;
      }
      return [200, { outcomes: page, next: page.length < limit ? null : page[page.length - 1]!.uin + 1 }];
    }),
    'GET /records/login-counts': route(['task'], async (log, q) => [200, { counts: await log.loginCounts(q.task!) }]),
    'GET /records/login-buckets': route(['task'], async (log, q) => {
      if (!keepsBuckets(log)) return noBuckets();
      return [200, encodeBucketTable(await log.loginBuckets(q.task!))];
    }),
    'GET /records/bucket-outcomes': route(['task', 'bucket', 'buckets?'], async (log, q) => {
      const count = Math.min(q.buckets ?? 1, BUCKET_SPAN - q.bucket!);
      const { outcomes, buckets } = await wholeBuckets(log, q.task!, q.bucket!, count);
      return [200, { ...encodeBucketOutcomes(outcomes), buckets }];
    }),
    'POST /records/purge': async (req) => {
      if (records === undefined)
        return [404, { code: 'NOT_FOUND', message: 'this process keeps no delivery records (only executors do)' }];
      const body = await readJsonBody(req);
      if (!body.ok) return body.refusal;
      const task = purgeTaskOf(body.value);
      if (typeof task !== 'number') return task;
      return [200, { task, ...(await records.purgeTask(task)) }];
    },
  };
}

/**
 * The outcomes of buckets [first, first + count) of the task, ascending, as
 * many whole buckets as fit in BUCKET_SPAN outcomes (at least the first: a
 * bucket holds at most that many), and how many buckets that is.
 */
async function wholeBuckets(
  log: DeliveryRecordLog,
  taskId: number,
  first: number,
  count: number,
): Promise<{ outcomes: LoginOutcome[]; buckets: number }> {
  const end = (first + count) * BUCKET_SPAN;
  const outcomes: LoginOutcome[] = [];
  for await (const outcome of log.loginsFrom(taskId, first * BUCKET_SPAN)) {
    if (outcome.uin >= end) break;
    if (outcomes.length === BUCKET_SPAN) {
      // Full: the page ends before the bucket of the outcome that does not fit.
      const cut = Math.floor(outcome.uin / BUCKET_SPAN) * BUCKET_SPAN;
      while (outcomes[outcomes.length - 1]!.uin >= cut) outcomes.pop();
      return { outcomes, buckets: cut / BUCKET_SPAN - first };
    }
    outcomes.push(outcome);
  }
  return { outcomes, buckets: count };
}

function keepsBuckets(log: DeliveryRecordLog): log is DeliveryRecordLog & LoginBucketLog {
  return typeof (log as Partial<LoginBucketLog>).loginBuckets === 'function';
}

function noBuckets(): [number, unknown] {
  return [404, { code: 'NOT_FOUND', message: "this process's delivery records keep no login buckets" }];
}

/** The purge body's task: {"task": T}, T a whole number from 1, nothing else. */
function purgeTaskOf(body: unknown): number | Refusal {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return bad('task', 'body must be {"task": T}');
  const unknown = Object.keys(body).find((name) => name !== 'task');
  if (unknown !== undefined) return bad(unknown, `unknown field ${unknown}`);
  const { task } = body as { task?: unknown };
  if (typeof task !== 'number' || !Number.isSafeInteger(task) || task < 1)
    return bad('task', 'task must be a whole number from 1');
  return task;
}

function outcomeOnWire({ uin, outcome, at }: LoginOutcome): Omit<LoginOutcome, 'taskId'> {
  return { uin, outcome, at };
}

type Query = Partial<Record<'task' | 'position' | 'from' | 'after' | 'limit' | 'uin' | 'bucket' | 'buckets', number>>;

/** The largest value a field may take, where the uin space bounds it. */
const MAXIMUM: Record<string, number> = { uin: 0xffff_ffff, bucket: 0xffff, buckets: 0x1_0000 };

const MINIMUM: Record<string, number> = { task: 1, limit: 1, buckets: 1 };

/** The query's fields (`name?` optional), each a whole number (task and limit from 1, the rest from 0); nothing else. */
function readQuery(req: IncomingMessage, fields: readonly string[]): Query | { refusal: Refusal } {
  const params = new URL(req.url ?? '/', 'http://management').searchParams;
  const names = fields.map((f) => f.replace('?', ''));
  for (const name of params.keys())
    if (!names.includes(name)) return { refusal: bad(name, `unknown query parameter ${name}`) };
  const query: Record<string, number> = {};
  for (const field of fields) {
    const name = field.replace('?', '');
    const raw = params.get(name);
    if (raw === null) {
      if (field.endsWith('?')) continue;
      return { refusal: bad(name, `${name} is required`) };
    }
    const value = /^\d{1,16}$/.test(raw) ? Number(raw) : NaN;
    const [min, max] = [MINIMUM[name] ?? 0, MAXIMUM[name] ?? Number.MAX_SAFE_INTEGER];
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      const range = name in MAXIMUM ? `from ${min} to ${max}` : `from ${min}`;
      return { refusal: bad(name, `${name} must be a whole number ${range} (got ${raw.slice(0, 40)})`) };
    }
    query[name] = value;
  }
  return query;
}

function bad(field: string, message: string): Refusal {
  return [400, { code: 'VALIDATION_FAILED', message, details: { field } } as Refusal[1]];
}
