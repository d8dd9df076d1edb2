import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { encodeRemovedSets } from '@herald/core/fate';
import { ErrorCodes } from '@herald/core';
import { ListFlags } from '@herald/core/recipient-list';
import {
  ListRepository,
  loadRecipientList,
  readRecipientListHeader,
  removedPathOf,
  writeRecipientListFile,
} from '@herald/audience';
import { makeTempDir, rejectsWithCode, type TempDir } from '@herald/testing';
import { encodeMessage, type PreprocessResult } from '@herald/transport';
import { PreprocessOutcomes } from './preprocess-outcome';

type Done = Extract<PreprocessResult, { ok: true }>;

/** No link removed anyone. */
const NONE = { sets: [], complete: true };

const TASK_ID = 12;
const LIST_ID = `f_${TASK_ID}`;

let dir: TempDir;
let lists: ListRepository;

beforeEach(async () => {
  dir = await makeTempDir('herald-outcome-');
  lists = new ListRepository(dir.path);
});
afterEach(() => dir.remove());

/** This run's result for a filtered list of `kept.length` recipients, under `epoch`. */
function resultOf(kept: number[], epoch = 3, removed: Done['removed'] = { duplicate: 1 }): Done {
  return {
    kind: 'preprocess.result',
    ok: true,
    taskId: TASK_ID,
    epoch,
    filteredListId: LIST_ID,
    total: kept.length + 1,
    kept: kept.length,
    removed,
    units: [{ start: 0, end: kept.length, executorId: 'executor-1' }],
  };
}

const filtered = async () => Array.from(await loadRecipientList(lists.pathOf(LIST_ID), { uinLimit: 2 ** 32 }));

describe('PreprocessOutcomes', () => {
  it('has no outcome for a task never pre-processed', async () => {
    expect(await new PreprocessOutcomes(lists).read(TASK_ID, 1)).toBeUndefined();
  });

  it('publishes the list and the result once; a later ask is answered from the record, under its own epoch', async () => {
    const outcomes = new PreprocessOutcomes(lists);
    const first = resultOf([1, 5, 9]);
    expect(await outcomes.publish(Uint32Array.of(1, 5, 9), NONE, first)).toEqual(first);
    expect(await filtered()).toEqual([1, 5, 9]);
    expect(await outcomes.read(TASK_ID, 4)).toEqual({ ...first, epoch: 4 });
    expect((await readdir(dir.path)).sort()).toEqual([`${LIST_ID}.hrl`, `${LIST_ID}.outcome`, `${LIST_ID}.removed`]);
  });

  it("links the winning run's list as the delivery-order list, one file under two names, and leaves no run's file behind", async () => {
    const outcomes = new PreprocessOutcomes(lists);
    const asOrder = { flags: ListFlags.UNIQUE, alsoAs: `g_${TASK_ID}` };
    const ordered = async () =>
      Array.from(await loadRecipientList(lists.pathOf(`g_${TASK_ID}`), { uinLimit: 2 ** 32 }));
    await outcomes.publish(Uint32Array.of(9, 1, 5), NONE, resultOf([9, 1, 5]), asOrder);
    expect(await ordered()).toEqual([9, 1, 5]);
    expect(await filtered()).toEqual([9, 1, 5]);
    const [f, g] = [await stat(lists.pathOf(LIST_ID)), await stat(lists.pathOf(`g_${TASK_ID}`))];
    expect(g.ino).toBe(f.ino);
    expect((await readRecipientListHeader(lists.pathOf(LIST_ID))).flags & ListFlags.SORTED).toBe(0);
    // A later run loses to the first: its own list is never named.
    await outcomes.publish(Uint32Array.of(1, 9), NONE, resultOf([1, 9], 5), asOrder);
    expect(await ordered()).toEqual([9, 1, 5]);
    expect((await readdir(dir.path)).sort()).toEqual([
      `${LIST_ID}.hrl`,
      `${LIST_ID}.outcome`,
      `${LIST_ID}.removed`,
      `g_${TASK_ID}.hrl`,
    ]);
  });

  it("replaces a dead run's delivery-order list along with its filtered list", async () => {
    // The dead run linked both names, then died before its outcome.
    await writeRecipientListFile(lists.pathOf(LIST_ID), Uint32Array.of(8, 4));
    await writeRecipientListFile(lists.pathOf(`g_${TASK_ID}`), Uint32Array.of(8, 4));
    const ours = resultOf([3, 1, 2]);
    await new PreprocessOutcomes(lists, 200).publish(Uint32Array.of(3, 1, 2), NONE, ours, {
      flags: ListFlags.UNIQUE,
      alsoAs: `g_${TASK_ID}`,
    });
    expect(Array.from(await loadRecipientList(lists.pathOf(`g_${TASK_ID}`), { uinLimit: 2 ** 32 }))).toEqual([3, 1, 2]);
    expect(await filtered()).toEqual([3, 1, 2]);
  });

  it('writes the removed sets as core encodes them, from views into the sets (an offset one included)', async () => {
    const within = Uint32Array.of(0, 2, 2, 7, 0).subarray(1, 4);
    const removed = {
      sets: [
        { reason: 'duplicate' as const, uins: within },
        { reason: 'blacklisted' as const, uins: Uint32Array.of() },
        { reason: 'already_sent' as const, uins: Uint32Array.of(3, 2 ** 32 - 1) },
      ],
      complete: true,
    };
    await new PreprocessOutcomes(lists).publish(Uint32Array.of(1, 5, 9), removed, resultOf([1, 5, 9]));
    const written = await readFile(removedPathOf(lists.pathOf(LIST_ID)));
    expect(written.equals(Buffer.from(encodeRemovedSets(removed.sets, true)))).toBe(true);
  });

  it("keeps the first run's list and result when a second run finishes later with another list (units may stream from the first)", async () => {
    const outcomes = new PreprocessOutcomes(lists);
    const first = resultOf([1, 5, 9]);
    await outcomes.publish(Uint32Array.of(1, 5, 9), NONE, first);
    const second = await outcomes.publish(Uint32Array.of(1, 9), NONE, resultOf([1, 9], 5, { over_frequency: 2 }));
    expect(second).toEqual({ ...first, epoch: 5 });
    expect(await filtered()).toEqual([1, 5, 9]);
    expect((await readdir(dir.path)).sort()).toEqual([`${LIST_ID}.hrl`, `${LIST_ID}.outcome`, `${LIST_ID}.removed`]);
  });

  it('answers one outcome to runs publishing at the same moment', async () => {
    const outcomes = [new PreprocessOutcomes(lists), new PreprocessOutcomes(lists), new PreprocessOutcomes(lists)];
    const kept = [[1, 2, 3], [2, 3], [3]];
    const answers = await Promise.all(
      outcomes.map((o, i) => o.publish(Uint32Array.from(kept[i]!), NONE, resultOf(kept[i]!, 7))),
    );
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(await filtered()).toEqual(kept[kept.findIndex((k) => k.length === answers[0]!.kept)]);
  });

  it('replaces a list left without an outcome (its run died between the two writes, so no result was sent)', async () => {
    await writeRecipientListFile(lists.pathOf(LIST_ID), Uint32Array.of(4, 8));
    const ours = resultOf([1, 2, 3]);
    expect(await new PreprocessOutcomes(lists, 200).publish(Uint32Array.of(1, 2, 3), NONE, ours)).toEqual(ours);
    expect(await filtered()).toEqual([1, 2, 3]);
    expect(await new PreprocessOutcomes(lists).read(TASK_ID, 3)).toEqual(ours);
  });

  it('refuses an unreadable outcome record with a typed error naming the task', async () => {
    // A record cut short (a disk that filled up, say).
    await writeFile(
      lists.pathOf(LIST_ID).replace(/\.hrl$/, '.outcome'),
      encodeMessage(resultOf([1, 2])).subarray(0, 20),
    );
    const error = await rejectsWithCode(new PreprocessOutcomes(lists).read(TASK_ID, 1), ErrorCodes.FRAME_MALFORMED);
    expect(error.message).toContain(`task ${TASK_ID}`);
  });
});
