/*
 * Which of a user's candidate tasks (those the range's 'i' index lists) hold
 * the user: the login read. A seek per task and group (holdsUin) is one
 * LevelDB read each, and a login storm pays them per user; but the spans an
 * append keeps in memory (offline-spans.ts) usually name the one record that
 * can hold the uin, so all those records are fetched in one getMany. Spans
 * are a hint only (an append's spans change after its write lands, a purge
 * or collapse drops them): a record fetched that holds the uin proves it,
 * and a task the hint cannot prove is sought on disk as before.
 */
import { indexOfSorted } from '@herald/core/uins';
import type { OfflineEntry } from '@herald/core/ports';
import { readU64BE } from './keys';
import { holdsUin, type Db } from './offline-cursors';
import { groupsOfIndex, shelfRecordKey, TASK_IN_ACK_KEY, TASK_IN_INDEX_KEY } from './offline-keys';
import type { RecordSpans } from './offline-spans';
import { decodeUins } from './uin-records';

export interface Candidate {
  taskId: number;
  /** The groups the task's 'i' value lists in the range. */
  groups: readonly number[];
}

/** The tasks a range's 'i' entries list (key, value) that the user's 'a' keys do not acknowledge, in index order. */
export function unacknowledged(
  index: readonly (readonly [Buffer, Buffer])[],
  acks: readonly Buffer[],
): (OfflineEntry & Candidate)[] {
  const acked = new Set(acks.map((k) => readU64BE(k, TASK_IN_ACK_KEY)));
  const candidates: (OfflineEntry & Candidate)[] = [];
  for (const [k, v] of index) {
    const taskId = readU64BE(k, TASK_IN_INDEX_KEY);
    if (!acked.has(taskId)) candidates.push({ taskId, expiresAt: v.readDoubleBE(0), groups: groupsOfIndex(v) });
  }
  return candidates;
}

/** Whether each candidate task has a record in `range` holding `uin` (acknowledged or not), in candidate order. */
export async function holdingTasks(
  db: Db,
  spans: RecordSpans,
  range: number,
  uin: number,
  candidates: readonly Candidate[],
): Promise<boolean[]> {
  const held = await provenBySpans(db, spans, range, uin, candidates);
  return Promise.all(
    candidates.map(async (c, i) => held[i]! || (await holdsUin(db, { range, taskId: c.taskId }, c.groups, uin))),
  );
}

/** Candidates whose records named by the spans in memory hold the uin, read in one getMany; false is "not proven". */
async function provenBySpans(
  db: Db,
  spans: RecordSpans,
  range: number,
  uin: number,
  candidates: readonly Candidate[],
): Promise<boolean[]> {
  const proven = candidates.map(() => false);
  const keys: Buffer[] = [];
  const owners: number[] = [];
  candidates.forEach(({ taskId, groups }, i) => {
    const task = spans.known(taskId);
    if (task === undefined) return;
    for (const group of groups) {
      const first = task.recordHolding(range, group, uin);
      if (first === undefined) continue;
      keys.push(shelfRecordKey({ range, taskId, group }, first));
      owners.push(i);
    }
  });
  if (keys.length === 0) return proven;
  const records = await db.getMany(keys);
  records.forEach((record, k) => {
    if (record !== undefined && indexOfSorted(decodeUins(record), uin) >= 0) proven[owners[k]!] = true;
  });
  return proven;
}
