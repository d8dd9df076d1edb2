/*
 * A local-time task's answers in both layouts of its lists: the filtered list
 * written group after group and linked as the delivery-order list (this
 * release), and an earlier release's filtered list sorted by uin beside a
 * second file in delivery order. Each row of the report is the per-recipient
 * answer, and both layouts answer alike.
 */
import { link, writeFile } from 'node:fs/promises';
import { encodeRemovedSets, onlineBitsOf } from '@herald/core/fate';
import { ListFlags } from '@herald/core/recipient-list';
import type { ExecutionUnit, LocalGroup, Task } from '@herald/core/task';
import { ListRepository, removedPathOf, writeRecipientListFile } from '@herald/audience';
import { LevelDeliveryRecordLog } from '@herald/store-level';
import { makeTempDir, type TempDir } from '@herald/testing';
import { variantIndexOf } from '@herald/core/rollout';
import { recipientFate, type RecipientFateDeps } from './recipient-fate';
import { variantCounts } from './variant-counts';
import { ndjsonLines, reportChunks } from './recipient-report';

const NOW = 1_700_000_000_000;
const GROUPS = 5;
/** 900 kept uins, spread over the groups by a hash; 60 removed by the blacklist. */
const kept = Array.from({ length: 900 }, (_, i) => i * 7 + 3);
const blacklisted = Array.from({ length: 60 }, (_, i) => i * 101 + 5).filter((uin) => (uin - 3) % 7 !== 0);
const groupOf = (uin: number) => ((uin * 2654435761) % 2 ** 32) % GROUPS;

let dir: TempDir;
let lists: ListRepository;
let records: LevelDeliveryRecordLog;

beforeAll(async () => {
  dir = await makeTempDir('herald-report-local-');
  lists = new ListRepository(dir.path);
  records = await LevelDeliveryRecordLog.open(`${dir.path}/records`);
});
afterAll(async () => {
  await records.close();
  await dir.remove();
});

/** The delivery order (group after group, each ascending), its groups, and the task's records and units. */
async function build(
  id: number,
  layout: 'one file' | 'earlier release',
): Promise<{ task: Task; deps: RecipientFateDeps }> {
  const order = [...Array(GROUPS).keys()].flatMap((g) => kept.filter((uin) => groupOf(uin) === g));
  const groups: LocalGroup[] = [];
  for (let g = 0, start = 0; g < GROUPS; g++) {
    const end = start + kept.filter((uin) => groupOf(uin) === g).length;
    groups.push({
      offsetMinutes: g * 60,
      releaseAt: NOW - 1_000 + g,
      start,
      end,
      skipped: g === 4,
      released: g < 4,
      delivered: 0,
      offline: 0,
    });
    start = end;
  }
  const [f, g] = [lists.pathOf(`f_${id}`), lists.pathOf(`g_${id}`)];
  if (layout === 'one file') {
    await writeRecipientListFile(f, Uint32Array.from(order), ListFlags.UNIQUE);
    await link(f, g);
  } else {
    await writeRecipientListFile(f, Uint32Array.from(kept), ListFlags.SORTED | ListFlags.UNIQUE);
    await writeRecipientListFile(g, Uint32Array.from(order));
  }
  await writeFile(
    removedPathOf(f),
    encodeRemovedSets([{ reason: 'blacklisted', uins: Uint32Array.from(blacklisted) }], true),
  );
  // Groups 0-3 sent in batches of 50 (every third uin online); the skipped group 4 never.
  const sent = groups[3]!.end;
  for (let from = 0; from < sent; from += 50) {
    const uins = Uint32Array.from(order.slice(from, Math.min(sent, from + 50)));
    const online = uins.filter((uin) => uin % 3 === 0);
    await records.recordBatch({
      taskId: id,
      from,
      count: uins.length,
      online: onlineBitsOf(uins, online),
      executor: 'e1',
      at: NOW - 500,
    });
  }
  const units = groups.slice(0, 4).map(
    (group, unitNo) =>
      ({
        unitNo,
        start: group.start,
        end: group.end,
        checkpoint: group.end,
        executorId: 'e1',
        state: 'DONE',
      }) as ExecutionUnit,
  );
  const task = {
    id,
    state: 'COMPLETED',
    filteredListId: `f_${id}`,
    expiresAt: NOW + 60_000,
    report: { kept: kept.length, localGroups: groups },
  } as unknown as Task;
  const deps: RecipientFateDeps = {
    store: { listUnits: async () => units },
    lists,
    deliveryRecords: records,
    clock: { now: () => NOW },
  };
  return { task, deps };
}

async function report(task: Task, deps: RecipientFateDeps, after?: number): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of reportChunks(task, after, { ...deps, uinLimit: 2 ** 20 }, ndjsonLines(task.id)))
    chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

describe("a local-time task's report and per-recipient answers", () => {
  const audience = [...new Set([...kept, ...blacklisted])].sort((a, b) => a - b);

  it.each(['one file', 'earlier release'] as const)(
    'writes each row as the per-recipient answer (%s)',
    async (layout) => {
      const { task, deps } = await build(layout === 'one file' ? 1 : 2, layout);
      const lines = ndjsonLines(task.id);
      for (const after of [undefined, 1_500]) {
        const rows = audience.filter((uin) => after === undefined || uin > after);
        const answers = await Promise.all(rows.map((uin) => recipientFate(task, uin, deps)));
        expect(await report(task, deps, after)).toBe(answers.map((row) => lines.line(row)).join(''));
      }
    },
  );

  it('answers alike in both layouts: the delivery-order position, its group, what its batch recorded', async () => {
    const [now, earlier] = [await build(3, 'one file'), await build(4, 'earlier release')];
    const strip = (text: string) => text.replace(/"taskId":\d+,/g, '');
    expect(strip(await report(now.task, now.deps))).toBe(strip(await report(earlier.task, earlier.deps)));
    const fates = await Promise.all(kept.map((uin) => recipientFate(now.task, uin, now.deps)));
    const order = [...Array(GROUPS).keys()].flatMap((g) => kept.filter((uin) => groupOf(uin) === g));
    for (const fate of fates) {
      expect(fate.position).toBe(order.indexOf(fate.uin));
      expect(fate.localGroup?.offsetMinutes).toBe(groupOf(fate.uin) * 60);
      const expected =
        groupOf(fate.uin) === 4 ? 'not_reached' : fate.uin % 3 === 0 ? 'delivered_online' : 'queued_offline';
      expect(fate.fate).toBe(expected);
    }
    for (const uin of blacklisted)
      expect(await recipientFate(now.task, uin, now.deps)).toMatchObject({ fate: 'removed' });
  });

  it("counts an A/B task's variants against the delivery order its records follow, in both layouts", async () => {
    const variants = [
      { name: 'a', share: 0.5, content: { text: 'a' } },
      { name: 'b', share: 0.5, content: { text: 'b' } },
    ];
    const rollout = { seed: 7, variants };
    const expected = variants.map(() => ({ recipients: 0, deliveredOnline: 0, queuedOffline: 0 }));
    for (const uin of kept) {
      const count = expected[variantIndexOf(uin, rollout.seed, variants)]!;
      count.recipients++;
      if (groupOf(uin) === 4) continue; // the skipped group: never sent
      if (uin % 3 === 0) count.deliveredOnline++;
      else count.queuedOffline++;
    }
    for (const [id, layout] of [
      [5, 'one file'],
      [6, 'earlier release'],
    ] as const) {
      const { task, deps } = await build(id, layout);
      const counts = await variantCounts({ ...task, rollout } as unknown as Task, { ...deps, uinLimit: 2 ** 20 });
      expect(
        counts?.map(({ recipients, deliveredOnline, queuedOffline }) => ({
          recipients,
          deliveredOnline,
          queuedOffline,
        })),
      ).toEqual(expected);
    }
  });
});
