/*
 * A local-time task's filtered list as pre-processing publishes it: group
 * after group, each sorted by uin, one file under the filtered list's name and
 * the delivery-order list's; and a later task's no-resend filter reading it.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { compileConfig } from '@herald/core/config';
import { noopLogger, type TaskStore } from '@herald/core/ports';
import { ListFlags } from '@herald/core/recipient-list';
import type { DeliverAt } from '@herald/core/time';
import type { Task } from '@herald/core/task';
import { ListRepository, loadRecipientList, readRecipientListHeader, writeRecipientListFile } from '@herald/audience';
import { LevelAttributeIndex } from '@herald/store-level';
import { makeTempDir, newTask, type TempDir } from '@herald/testing';
import type { PreprocessRequest, PreprocessResult } from '@herald/transport';
import { buildFilterChain } from './filters/chain';
import { preprocess, type PreprocessDeps } from './preprocess';
import { planUnits } from './plan-units';
import { storeLedger } from './sources';

const DAY = Date.UTC(2026, 9, 25);
const deliverAt: DeliverAt = { localTime: '09:00', windowMs: 3_600_000, missed: 'next_day', defaultTimeZone: 'UTC' };
const ZONES = ['Asia/Tokyo', 'Europe/Berlin', 'America/New_York', '+05:30'];
const config = compileConfig({ uinSpaceBits: 16, dispatcher: { unitSize: 50, batchSize: 10 } });
const ACCOUNT = 'acme';
const CRC = 0x10ca1;
/** 400 uins, every fifth without a zone (the default, UTC). */
const audience = Uint32Array.from({ length: 400 }, (_, i) => (i * 163 + 11) % config.uinLimit);

let dir: TempDir;
let lists: ListRepository;
let index: LevelAttributeIndex;

beforeAll(async () => {
  dir = await makeTempDir('herald-preprocess-local-');
  lists = new ListRepository(dir.path);
  index = await LevelAttributeIndex.open(join(dir.path, 'attributes'));
  await index.putUsers([...audience].map((uin, i) => (i % 5 === 4 ? { uin } : { uin, tz: ZONES[uin % 4]! })));
  await writeRecipientListFile(lists.pathOf('l_audience'), audience);
});
afterAll(async () => {
  await index?.close();
  await dir?.remove();
});

/** Tasks 1 and 3 (local time) and 2 (the same content later): the ledger's store holds task 1 once it is filtered. */
function deps(earlier: Partial<Task>[]): PreprocessDeps {
  const store: Pick<TaskStore, 'listTasksByContent' | 'getTask'> = {
    getTask: async () => undefined,
    listTasksByContent: async () =>
      earlier.map((t) => ({ ...newTask({ accountId: ACCOUNT, contentCrc: CRC }), ...t }) as unknown as Task),
  };
  return {
    config,
    lists,
    filters: buildFilterChain({
      blacklists: { global: async () => undefined, forAccount: async () => undefined },
      ledger: storeLedger(store as TaskStore, lists, config.uinLimit),
    }),
    filterWorkers: 1,
    planUnits: (taskId, count, segments) =>
      planUnits(taskId, count, { config, executorIds: ['e1'], loads: [], now: 0, logger: noopLogger }, segments),
    localTime: {
      taskOf: async (taskId) => (taskId !== 2 ? { deliverAt, expiresAt: DAY + 2 * 86_400_000 } : undefined),
      index,
      clock: { now: () => DAY - 3 * 3_600_000 },
    },
    logger: noopLogger,
  };
}

const request = (taskId: number): PreprocessRequest => ({
  kind: 'preprocess.request',
  taskId,
  epoch: 1,
  listId: 'l_audience',
  accountId: ACCOUNT,
  contentCrc: CRC,
  speed: 0,
});

describe('a local-time task pre-processed', () => {
  let result: Extract<PreprocessResult, { ok: true }>;

  beforeAll(async () => {
    const answer = await preprocess(request(1), deps([]));
    if (!answer.ok) throw new Error('expected a successful result');
    result = answer;
  });

  it('publishes its filtered list group after group, each sorted by uin, as the delivery-order list too', async () => {
    const path = lists.pathOf('f_1');
    expect((await readRecipientListHeader(path)).flags).toBe(ListFlags.UNIQUE);
    expect((await stat(lists.pathOf('g_1'))).ino).toBe((await stat(path)).ino);
    const list = await loadRecipientList(path, { uinLimit: config.uinLimit });
    const groups = result.groups!;
    expect(groups).toHaveLength(ZONES.length + 1);
    expect(groups[0]!.start).toBe(0);
    expect(groups[groups.length - 1]!.end).toBe(audience.length);
    for (const group of groups) {
      const run = [...list.subarray(group.start, group.end)];
      expect(run).toEqual([...run].sort((a, b) => a - b));
    }
    expect([...list].sort((a, b) => a - b)).toEqual([...audience].sort((a, b) => a - b));
    for (const unit of result.units) expect(groups.some((g) => g.start <= unit.start && unit.end <= g.end)).toBe(true);
  });

  it("is what a later task's no-resend filter removes, every recipient of it", async () => {
    const later = await preprocess(request(2), deps([{ id: 1, filteredListId: 'f_1', report: localReport() }]));
    expect(later).toMatchObject({ ok: true, kept: 0, removed: { already_sent: audience.length } });
  });

  it('plans its units once for the whole task, each group cut over the same executors', async () => {
    const warnings: string[] = [];
    const reasons: string[] = [];
    const logger = { ...noopLogger, warn: (message: string) => void warnings.push(message) };
    const answer = await preprocess(request(3), {
      ...deps([]),
      // No load report yet: every group split evenly over both executors, and one warning for the task.
      planUnits: (taskId, count, segments) =>
        planUnits(
          taskId,
          count,
          { config, executorIds: ['e1', 'e2'], loads: [], now: 0, logger, planned: (r) => reasons.push(r) },
          segments,
        ),
    });
    if (!answer.ok) throw new Error('expected a successful result');
    const groups = answer.groups!.filter((g) => !g.skipped && g.end > g.start);
    expect(groups.length).toBeGreaterThan(1);
    expect(reasons).toEqual(['no-fresh-report']);
    expect(warnings).toHaveLength(1);
    for (const group of groups) {
      const units = answer.units.filter((u) => group.start <= u.start && u.end <= group.end);
      expect(units.reduce((sum, u) => sum + u.end - u.start, 0)).toBe(group.end - group.start);
      expect(new Set(units.map((u) => u.executorId))).toEqual(new Set(['e1', 'e2']));
    }
    expect(answer.units.reduce((sum, u) => sum + u.end - u.start, 0)).toBe(
      groups.reduce((sum, g) => sum + g.end - g.start, 0),
    );
  });

  /** Task 1's report as the scheduler records it: its groups. */
  function localReport(): Task['report'] {
    const localGroups = result.groups!.map((g) => ({ ...g, released: false }));
    return { localGroups } as unknown as Task['report'];
  }
});
