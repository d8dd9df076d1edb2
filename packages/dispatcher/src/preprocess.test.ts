import { access } from 'node:fs/promises';
import { compileConfig } from '@herald/core/config';
import { HeraldError, ListFormatError, NotFoundError } from '@herald/core';
import { ListFlags } from '@herald/core/recipient-list';
import { noopLogger, type TaskStore } from '@herald/core/ports';
import type { Task } from '@herald/core/task';
import { ListRepository, loadRecipientList, readRecipientListHeader, writeRecipientListFile } from '@herald/audience';
import { makeTempDir, newTask, rejectsWithCode, type TempDir } from '@herald/testing';
import type { PreprocessRequest } from '@herald/transport';
import { buildFilterChain } from './filters/chain';
import { filteredListIdOf, preprocess, type PreprocessDeps } from './preprocess';
import { planUnits } from './plan-units';
import { readListRange } from './read-range';
import { storeLedger } from './sources';

const ACCOUNT = 'acme';
const CRC = 0x5eed;
const TASK_ID = 10;
const config = compileConfig({ uinSpaceBits: 16, dispatcher: { unitSize: 2, batchSize: 2 } });

let dir: TempDir;
let lists: ListRepository;

beforeEach(async () => {
  dir = await makeTempDir('herald-preprocess-');
  lists = new ListRepository(dir.path);
});
afterEach(async () => {
  await dir.remove();
});

const request = (listId: string, taskId = TASK_ID): PreprocessRequest => ({
  kind: 'preprocess.request',
  taskId,
  epoch: 4,
  listId,
  accountId: ACCOUNT,
  contentCrc: CRC,
  speed: 0,
});

/**
 * A task store that only answers the no-resend query: one earlier task of the account with this content, and
 * no task of its own (so no no-resend scope: every earlier task counts).
 */
function ledgerStore(earlier: { id: number; filteredListId: string }[]): TaskStore {
  const store: Pick<TaskStore, 'listTasksByContent' | 'getTask'> = {
    getTask: async () => undefined,
    async listTasksByContent(accountId, contentCrc) {
      if (accountId !== ACCOUNT || contentCrc !== CRC) return [];
      return earlier.map((t) => ({ ...newTask({ accountId, contentCrc }), report: {}, ...t }) as unknown as Task);
    },
  };
  return store as TaskStore;
}

function deps(overrides: Partial<PreprocessDeps> = {}): PreprocessDeps {
  return {
    config,
    lists,
    filters: buildFilterChain({
      blacklists: {
        global: async () => Uint32Array.of(7, 2000),
        forAccount: async (accountId) => (accountId === ACCOUNT ? Uint32Array.of(600) : undefined),
      },
      ledger: storeLedger(ledgerStore([{ id: 3, filteredListId: 'f_3' }]), lists, config.uinLimit),
    }),
    // No load report yet: an even split over both executors (plan-units.test.ts covers the plans by load).
    planUnits: (taskId, count, segments) =>
      planUnits(taskId, count, { config, executorIds: ['e1', 'e2'], loads: [], now: 0, logger: noopLogger }, segments),
    logger: noopLogger,
    ...overrides,
  };
}

describe('preprocess', () => {
  it('sorts, filters, writes the filtered list and plans units over it', async () => {
    // 12 uins: 3 duplicates, 7 (global) and 600 (account) blacklisted, 12 and 77 sent by task 3.
    await writeRecipientListFile(
      lists.pathOf('l_upload'),
      Uint32Array.of(50, 7, 3, 7, 900, 3, 3, 42, 1000, 12, 600, 77),
    );
    await writeRecipientListFile(
      lists.pathOf('f_3'),
      Uint32Array.of(12, 77, 5000),
      ListFlags.SORTED | ListFlags.UNIQUE,
    );

    const result = await preprocess(request('l_upload'), deps());

    expect(result).toEqual({
      kind: 'preprocess.result',
      ok: true,
      taskId: TASK_ID,
      epoch: 4,
      filteredListId: 'f_10',
      total: 12,
      kept: 5,
      removed: { duplicate: 3, blacklisted: 2, already_sent: 2 },
      units: [
        { start: 0, end: 2, executorId: 'e1' },
        { start: 2, end: 3, executorId: 'e1' },
        { start: 3, end: 5, executorId: 'e2' },
      ],
    });

    const path = lists.pathOf(filteredListIdOf(TASK_ID));
    const header = await readRecipientListHeader(path);
    expect(header.count).toBe(5);
    expect(header.flags).toBe(ListFlags.SORTED | ListFlags.UNIQUE);
    const kept = await loadRecipientList(path, { uinLimit: config.uinLimit });
    expect([...kept]).toEqual([3, 42, 50, 900, 1000]);

    // The units, read back by position, are the filtered list cut in order.
    const perUnit: number[][] = [];
    if (!result.ok) throw new Error('expected a successful result');
    for (const unit of result.units) {
      const uins: number[] = [];
      for await (const batch of readListRange(path, unit.start, unit.end, config.dispatcher.batchSize))
        uins.push(...batch);
      perUnit.push(uins);
    }
    expect(perUnit).toEqual([[3, 42], [50], [900, 1000]]);
  });

  it('pre-processes a task once: asked again, it answers the first result and keeps its list, under the asking epoch', async () => {
    await writeRecipientListFile(lists.pathOf('l_upload'), Uint32Array.of(9, 8, 8, 7));
    const first = await preprocess(request('l_upload'), deps());
    expect(first).toMatchObject({
      ok: true,
      filteredListId: 'f_10',
      total: 4,
      kept: 2,
      removed: { duplicate: 1, blacklisted: 1 },
    });
    // The chain would now remove 9 too (blacklisted meanwhile): units may already stream from the first list.
    const blacklisted = deps({
      filters: buildFilterChain({
        blacklists: { global: async () => Uint32Array.of(7, 9), forAccount: async () => undefined },
        ledger: { audiencesOf: async function* () {} },
      }),
    });
    const again = await preprocess({ ...request('l_upload'), epoch: 5 }, blacklisted);
    expect(again).toEqual({ ...first, epoch: 5 });
    expect([...(await loadRecipientList(lists.pathOf('f_10'), { uinLimit: config.uinLimit }))]).toEqual([8, 9]);
  });

  it('keeps an empty filtered list and plans no unit when everyone is filtered out', async () => {
    await writeRecipientListFile(lists.pathOf('l_upload'), Uint32Array.of(7, 7, 600));
    const result = await preprocess(request('l_upload'), deps());
    expect(result).toMatchObject({
      ok: true,
      total: 3,
      kept: 0,
      removed: { duplicate: 1, blacklisted: 2, already_sent: 0 },
      units: [],
    });
    const header = await readRecipientListHeader(lists.pathOf('f_10'));
    expect(header).toMatchObject({ count: 0, flags: ListFlags.SORTED | ListFlags.UNIQUE });
  });

  it('rejects a list with a uin outside the uin space, writing nothing', async () => {
    await writeRecipientListFile(lists.pathOf('l_upload'), Uint32Array.of(5, config.uinLimit, 6));
    const error = await rejectsWithCode(preprocess(request('l_upload'), deps()), 'LIST_UIN_OUT_OF_RANGE');
    expect(error).toBeInstanceOf(ListFormatError);
    await expect(access(lists.pathOf('f_10'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('rejects a missing list with a typed not-found error', async () => {
    const error = await rejectsWithCode(preprocess(request('l_missing'), deps()), 'LIST_NOT_FOUND');
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toBeInstanceOf(HeraldError);
  });
});
