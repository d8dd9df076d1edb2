/**
 * Cross-site recovery, the I/O part (docs/recovery.md): `herald recover`
 * without the command line. Reads the origin site's reports of one task from
 * Kafka and its filtered list from the shared list storage, computes the
 * remainder (core's computeRemainder), and creates a task for the remainder
 * only through this site's HTTP API.
 */
import { randomBytes } from 'node:crypto';
import { Kafka, logLevel, Partitioners, type Admin } from 'kafkajs';
import {
  checkReportsComplete,
  computeRemainder,
  parseBatchReport,
  ReportsMismatchError,
  type BatchReport,
  type ListRange,
} from '@herald/core/recovery';
import { ConfigError, HeraldError, ErrorCodes, isHeraldError, NotFoundError, ValidationError } from '@herald/core';
import { encodeRecipientList, ListFlags } from '@herald/core/recipient-list';
import { TOPICS, type TaskStore } from '@herald/core/ports';
import type { ListMeta, PriorityClass, Task, TaskContent } from '@herald/core/task';
import { ListRepository, loadRecipientList } from '@herald/audience';
import { compileKafkaSecurity, type KafkaSaslCredentials, type KafkaTlsMaterial } from '@herald/events-kafka';

/** What the new task needs of the origin task. */
export interface OriginTask {
  accountId: string;
  content: TaskContent;
  priority: PriorityClass;
  /** The uploaded list: used only when the task never got a filtered list. */
  listId?: string;
  /** The origin's expiry: the new task keeps it (undefined: this site's default TTL). */
  expiresAt?: number;
  /** Where these came from: the origin site's task store, or the operator's options. */
  source: 'store' | 'options';
  /**
   * When the task was created (epoch ms; the task store knows). Lets recovery
   * accept reports from a partition whose oldest records were deleted, when
   * what is left is older than the task (checkReportsComplete).
   */
  createdAt?: number;
}

export interface ReportSource {
  brokers: string[];
  /** The origin site's `kafka.topicPrefix`. */
  topicPrefix: string;
  clientId?: string;
  /** Give up reading after this long (default 120,000). */
  timeoutMs?: number;
  /** SASL and TLS for those brokers (`kafka.sasl`, `kafka.tls` of the config they come from). @defaultValue plaintext */
  sasl?: KafkaSaslCredentials;
  tls?: KafkaTlsMaterial;
}

export interface RecoverOptions {
  /** The origin site's task id. */
  taskId: number;
  reports: ReportSource;
  /** The origin site's list storage (its `<dataDir>/lists`), shared with this site. */
  listsDir: string;
  /** The origin site's uin limit (2^uinSpaceBits), for reading its lists. */
  uinLimit: number;
  origin: OriginTask;
  /** This site's HTTP API, e.g. http://127.0.0.1:8080. */
  apiUrl: string;
  /** The API token it calls with (`Authorization: Bearer`): an admin's or an operator's of the task's account. */
  apiToken?: string;
  /** A line of progress for the operator. */
  onProgress?: (line: string) => void;
}

export interface RecoverySummary {
  originTaskId: number;
  /** The list the remainder was taken from: the task's filtered list, or its uploaded list when it had none. */
  listId: string;
  listLength: number;
  listSource: 'filtered' | 'original';
  originFrom: OriginTask['source'];
  reports: number;
  /** The reported ranges, merged. */
  reported: ListRange[];
  /** Recipients the origin site delivered or queued (inside the reported ranges). */
  reached: number;
  remainder: number;
  /** The new list and task on this site; null when the remainder is empty. */
  newListId: string | null;
  newTaskId: number | null;
}

/** The origin task as its site's task store has it; TASK_NOT_FOUND when it has none. */
export async function readOriginTask(store: TaskStore, taskId: number): Promise<OriginTask> {
  const task = await store.getTask(taskId);
  if (task === undefined)
    throw new NotFoundError('TASK_NOT_FOUND', `task ${taskId} does not exist in the origin site's task store`, {
      taskId,
    });
  return {
    accountId: task.accountId,
    content: task.content,
    priority: task.priority,
    listId: task.listId,
    expiresAt: task.expiresAt,
    source: 'store',
    createdAt: task.createdAt,
  };
}

/**
 * Every report of `taskId` on the origin's reports topic, read from the
 * beginning up to the end offsets as they were when reading began (a fresh
 * consumer group, removed afterwards). The origin site is down, so nothing
 * is written after that; reports from any epoch or repetition all count.
 *
 * A ReportsIncompleteError when the partition holding the task's reports
 * lost records to retention that may have been the task's (core
 * checkReportsComplete; `createdAt`, the task's creation time, tells when
 * they cannot have been).
 */
export async function readTaskReports(
  source: ReportSource,
  taskId: number,
  createdAt?: number,
): Promise<BatchReport[]> {
  const { sasl, ssl } = compileKafkaSecurity(source.sasl, source.tls);
  const kafka = new Kafka({
    clientId: source.clientId ?? 'herald-recover',
    brokers: source.brokers,
    logLevel: logLevel.NOTHING,
    ...(sasl === undefined ? {} : { sasl }),
    ...(ssl === undefined ? {} : { ssl }),
  });
  const topic = source.topicPrefix + TOPICS.reports;
  const admin = kafka.admin();
  try {
    await admin.connect();
  } catch (error) {
    throw new ConfigError(
      '--brokers',
      `no Kafka broker of ${source.brokers.join(',')} answers: ${(error as Error).message}`,
    );
  }
  const groupId = `${source.topicPrefix}herald-recover-${taskId}-${randomBytes(4).toString('hex')}`;
  try {
    const partition = await taskPartition(admin, topic, taskId);
    const pending = new Map<number, bigint>(); // partition -> end offset still to reach
    let logStart = 0n;
    for (const p of await admin.fetchTopicOffsets(topic)) {
      if (p.partition === partition) logStart = BigInt(p.low);
      if (BigInt(p.high) > BigInt(p.low)) pending.set(p.partition, BigInt(p.high));
    }
    const read =
      pending.size === 0 ? { reports: [] } : await readUntilEnds(kafka, groupId, topic, pending, taskId, source);
    checkReportsComplete({ taskId, partition, logStart, ...read.firstOf?.(partition), createdAt });
    return read.reports;
  } finally {
    await admin.deleteGroups([groupId]).catch(() => undefined); // best effort: it committed nothing
    await admin.disconnect();
  }
}

/**
 * The partition of the task's reports: executors publish them keyed by task
 * id through the event bus's producer, whose partitioner (kafkajs's default,
 * murmur2 like the Java client's) this asks.
 */
async function taskPartition(admin: Admin, topic: string, taskId: number): Promise<number> {
  const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
  const partitionMetadata = topics[0]?.partitions ?? [];
  if (partitionMetadata.length === 0) return 0;
  return Partitioners.DefaultPartitioner()({ topic, partitionMetadata, message: { key: String(taskId), value: null } });
}

interface ReportsRead {
  reports: BatchReport[];
  /** The first record read from a partition, if any. */
  firstOf?: (partition: number) => { first?: { offset: bigint; timestamp: number } };
}

/** Reads `topic` from its beginning until each partition of `pending` reached its end offset; the task's reports, and each partition's first record. */
async function readUntilEnds(
  kafka: Kafka,
  groupId: string,
  topic: string,
  pending: Map<number, bigint>,
  taskId: number,
  source: ReportSource,
): Promise<ReportsRead> {
  const reports: BatchReport[] = [];
  const firsts = new Map<number, { offset: bigint; timestamp: number }>();
  const key = String(taskId);
  const consumer = kafka.consumer({ groupId });
  await consumer.connect();
  try {
    let finished!: () => void;
    let failed!: (error: unknown) => void;
    const done = new Promise<void>((resolve, reject) => ((finished = resolve), (failed = reject)));
    done.catch(() => undefined); // it may fail before the race below awaits it; the race still sees the failure
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        const end = pending.get(batch.partition);
        if (end === undefined) return;
        const head = batch.messages[0];
        if (head !== undefined && !firsts.has(batch.partition))
          firsts.set(batch.partition, { offset: BigInt(head.offset), timestamp: Number(head.timestamp) });
        try {
          for (const message of batch.messages) {
            if (BigInt(message.offset) >= end) break;
            if (message.key?.toString() !== key || message.value === null) continue;
            const report = parseBatchReport(parseJson(message.value.toString(), taskId), taskId);
            if (report !== undefined) reports.push(report);
          }
        } catch (error) {
          failed(error);
          return;
        }
        if (BigInt(batch.lastOffset()) + 1n >= end) pending.delete(batch.partition);
        if (pending.size === 0) finished();
      },
    });
    const timeoutMs = source.timeoutMs ?? 120_000;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new HeraldError(ErrorCodes.UNAVAILABLE, `reading ${topic} did not reach its end within ${timeoutMs} ms`, {
              retriable: true,
              details: { topic },
            }),
          ),
        timeoutMs,
      );
    });
    await Promise.race([done, timeout]).finally(() => clearTimeout(timer));
    return {
      reports,
      firstOf: (partition) => {
        const first = firsts.get(partition);
        return first === undefined ? {} : { first };
      },
    };
  } finally {
    await consumer.disconnect();
  }
}

function parseJson(text: string, taskId: number): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ReportsMismatchError(`a report of task ${taskId} is not JSON`, { reason: 'malformed' });
  }
}

/** The list in the origin's storage, or undefined when it does not exist. */
async function loadIfThere(listsDir: string, listId: string, uinLimit: number): Promise<Uint32Array | undefined> {
  try {
    return await loadRecipientList(new ListRepository(listsDir).pathOf(listId), { uinLimit });
  } catch (error) {
    if (isHeraldError(error) && error.code === ErrorCodes.LIST_NOT_FOUND) return undefined;
    throw error;
  }
}

async function post<T>(
  apiUrl: string,
  apiToken: string | undefined,
  path: string,
  body: Uint8Array | object,
): Promise<T> {
  const binary = body instanceof Uint8Array;
  const response = await fetch(apiUrl + path, {
    method: 'POST',
    headers: {
      'content-type': binary ? 'application/octet-stream' : 'application/json',
      ...(apiToken === undefined ? {} : { authorization: `Bearer ${apiToken}` }),
    },
    body: binary ? body : JSON.stringify(body),
  });
  const json = (await response.json()) as T & { error?: { code: string; message: string } };
  if (!response.ok)
    throw new HeraldError(
      ErrorCodes.INTERNAL,
      `POST ${path} on ${apiUrl}: ${response.status} ${json.error?.code}: ${json.error?.message}`,
      { details: { status: response.status, api: json.error } },
    );
  return json;
}

/**
 * Recovers one task of a failed site on this one: the remainder of its
 * filtered list after every reported range, as a new task with the origin's
 * account, content and priority (and expiry, when known).
 *
 * Errors: TASK_NOT_FOUND when the task has neither a filtered list nor
 * reports and its uploaded list is unknown; a ReportsMismatchError when
 * reports exist without a filtered list, or cover positions past its end;
 * a ReportsIncompleteError (a ReportsMismatchError, reason
 * 'reports_deleted') when retention may have deleted some of the reports.
 */
export async function recoverTask(options: RecoverOptions): Promise<RecoverySummary> {
  const say = options.onProgress ?? (() => undefined);
  const { taskId, origin } = options;
  say(`reading reports of task ${taskId} from ${options.reports.topicPrefix}${TOPICS.reports}`);
  const reports = await readTaskReports(options.reports, taskId, origin.createdAt);
  say(`${reports.length} reports read`);

  const filteredId = `f_${taskId}`;
  let list = await loadIfThere(options.listsDir, filteredId, options.uinLimit);
  let listId = filteredId;
  let listSource: RecoverySummary['listSource'] = 'filtered';
  if (list === undefined) {
    if (reports.length > 0)
      throw new ReportsMismatchError(
        `task ${taskId} has ${reports.length} reports but no filtered list ${filteredId} in ${options.listsDir}`,
        { reason: 'no_filtered_list', taskId },
      );
    if (origin.listId === undefined)
      throw new NotFoundError(
        'TASK_NOT_FOUND',
        `task ${taskId}: no filtered list ${filteredId}, no reports, and no uploaded list to recover from`,
        { taskId },
      );
    // It never got past pre-processing: nothing was sent, so the whole uploaded list is owed; this site filters it again.
    list = await loadIfThere(options.listsDir, origin.listId, options.uinLimit);
    if (list === undefined)
      throw new NotFoundError(
        'LIST_NOT_FOUND',
        `task ${taskId}: neither its filtered list ${filteredId} nor its uploaded list ${origin.listId} is in ${options.listsDir}`,
        { taskId },
      );
    listId = origin.listId;
    listSource = 'original';
  }
  say(`list ${listId} (${listSource}): ${list.length} recipients`);

  const remainder = computeRemainder(list, reports);
  say(`reported ranges: ${remainder.reported.map((r) => `[${r.from}, ${r.to})`).join(' ') || 'none'}`);
  say(`already reached: ${remainder.reached}; remainder: ${remainder.uins.length}`);
  const summary: RecoverySummary = {
    originTaskId: taskId,
    listId,
    listLength: list.length,
    listSource,
    originFrom: origin.source,
    reports: reports.length,
    reported: remainder.reported,
    reached: remainder.reached,
    remainder: remainder.uins.length,
    newListId: null,
    newTaskId: null,
  };
  if (remainder.uins.length === 0) {
    say('nothing left to send: no task created');
    return summary;
  }

  const ttlSeconds = origin.expiresAt === undefined ? undefined : Math.ceil((origin.expiresAt - Date.now()) / 1000);
  if (ttlSeconds !== undefined && ttlSeconds <= 0)
    throw new ValidationError(
      `task ${taskId} expired at ${new Date(origin.expiresAt!).toISOString()}: nothing to recover`,
      { taskId },
    );
  // The original list was not filtered yet (it may hold duplicates): only a filtered one is sorted and distinct.
  const flags = listSource === 'filtered' ? ListFlags.SORTED | ListFlags.UNIQUE : 0;
  const meta = await post<ListMeta>(
    options.apiUrl,
    options.apiToken,
    `/api/v1/lists?accountId=${encodeURIComponent(origin.accountId)}`,
    encodeRecipientList(remainder.uins, flags),
  );
  say(`remainder uploaded as list ${meta.id}`);
  const task = await post<Task>(options.apiUrl, options.apiToken, '/api/v1/tasks', {
    accountId: origin.accountId,
    listId: meta.id,
    content: origin.content,
    priority: origin.priority,
    ...(ttlSeconds === undefined ? {} : { ttlSeconds }),
  });
  say(`task ${task.id} created for the remainder of task ${taskId}`);
  return { ...summary, newListId: meta.id, newTaskId: task.id };
}
