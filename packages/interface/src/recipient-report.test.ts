import { link, writeFile } from 'node:fs/promises';
import fc from 'fast-check';
import {
  encodeRemovedSets,
  HostsUnreachable,
  onlineBitsOf,
  type DeliveryRecord,
  type LoginOutcome,
  type LoginOutcomeKind,
} from '@herald/core/fate';
import type { DeliveryRecordLog } from '@herald/core/ports';
import { ListFlags } from '@herald/core/recipient-list';
import type { TaskRollout } from '@herald/core/rollout';
import { TASK_STATES, type ExecutionUnit, type FilterReason, type Task } from '@herald/core/task';
import { ListRepository, removedPathOf, writeRecipientListFile } from '@herald/audience';
import { LevelDeliveryRecordLog } from '@herald/store-level';
import { makeTempDir, type TempDir } from '@herald/testing';
import { recipientFate, type RecipientFateDeps } from './recipient-fate';
import {
  CSV_LINES,
  csvLinesOf,
  ndjsonLines,
  reportChunks,
  VARIANT_CSV_LINES,
  type ReportLines,
} from './recipient-report';

const NOW = 1_700_000_000_000;
const LINKS: readonly FilterReason[] = ['blacklisted', 'already_sent', 'over_frequency'];

/**
 * How the filtered list is laid out: each has a report path of its own (a
 * plain task's sorted list; a canary's and a local-time task's sorted runs,
 * merged, with a local-time task's rows decorated by their group; an earlier
 * release's local-time task placed through its delivery-order list).
 */
const LAYOUTS = ['plain', 'canary', 'local', 'earlier local'] as const;
type Layout = (typeof LAYOUTS)[number];

/**
 * An A/B task's rollout (docs/rollouts.md), which the API allows beside a
 * canary or local time: its kept rows name their variant. The uins here are
 * not filtered by its holdout, so some kept ones hash into it and name none,
 * as the per-recipient answer names none for such a uin (a list filtered
 * before its rollout changed).
 */
const AB_ROLLOUT: TaskRollout = {
  seed: 0x2545f491,
  variants: [
    { name: 'a', share: 0.4, content: { body: 'A' } },
    { name: 'b', share: 0.3, content: { body: 'B' } },
    { name: 'c_2', share: 0.2, content: { body: 'C' } },
  ],
  holdout: 0.1,
};

/** A task of one content, and an A/B task: what a test case names them by. */
const ROLLOUTS = { 'one content': undefined, 'A/B': AB_ROLLOUT } as const;

/** A task's audience and what became of it, drawn at random: the facts both answers read. */
interface Scenario {
  state: Task['state'];
  expiresIn: number;
  /** Per distinct uin (ascending by index): kept, or the link that removed it; and its extra copies. */
  recipients: { kept: boolean; link: number; copies: number; online: boolean; login: number }[];
  /** Batch lengths from position 0, each recorded or not (a gap), and units' checkpoints. */
  batches: { count: number; recorded: boolean; executor: string }[];
  checkpoint: number;
  withRecords: boolean;
  /** An executor whose records are on a host that does not answer (production), or none. */
  down: string | undefined;
  /** Whether the down host's batch records are read all the same (only its login outcomes are not). */
  downRecordsRead?: boolean;
  after: number;
}

const scenarioArbitrary: fc.Arbitrary<Scenario> = fc.record({
  state: fc.constantFrom(...TASK_STATES),
  expiresIn: fc.constantFrom(-1_000, 1_000),
  recipients: fc.array(
    fc.record({
      kept: fc.boolean(),
      link: fc.nat({ max: LINKS.length - 1 }),
      copies: fc.constantFrom(0, 0, 0, 1, 2),
      online: fc.boolean(),
      login: fc.nat({ max: 4 }),
    }),
    { maxLength: 120 },
  ),
  batches: fc.array(
    fc.record({
      count: fc.integer({ min: 1, max: 9 }),
      recorded: fc.boolean(),
      executor: fc.constantFrom('e1', 'e,"2"'),
    }),
    { maxLength: 20 },
  ),
  checkpoint: fc.nat({ max: 120 }),
  withRecords: fc.boolean(),
  down: fc.constantFrom(undefined, undefined, 'e1', 'e,"2"'),
  after: fc.integer({ min: -1, max: 400 }),
});

/**
 * The records as production's ClusterDeliveryRecords gives them while the
 * host of executor `down` does not answer: its records and the outcomes of
 * the recipients it queued are missing, a lookup that finds nothing on the
 * others throws HostsUnreachable, and a walk names it in `unreachable`.
 */
class HostDownLog implements DeliveryRecordLog {
  constructor(
    private readonly log: DeliveryRecordLog,
    private readonly down: string,
    private readonly queuedByDown: ReadonlySet<number>,
    /** Its batch records still read (only its login outcomes do not answer). */
    private readonly recordsRead = false,
  ) {}
  recordBatch = () => Promise.reject(new Error('read only'));
  recordBatches = () => Promise.reject(new Error('read only'));
  recordLogins = () => Promise.reject(new Error('read only'));
  loginCounts = () => Promise.reject(new HostsUnreachable([this.down]));
  purgeTask = () => Promise.reject(new HostsUnreachable([this.down]));
  close = () => Promise.resolve();
  async batchAt(taskId: number, position: number): Promise<DeliveryRecord | undefined> {
    const record = await this.log.batchAt(taskId, position);
    if (this.recordsRead) return record;
    if (record === undefined || record.executor === this.down) throw new HostsUnreachable([this.down]);
    return record;
  }
  async loginOf(taskId: number, uin: number): Promise<LoginOutcome | undefined> {
    const outcome = this.queuedByDown.has(uin) ? undefined : await this.log.loginOf(taskId, uin);
    if (outcome === undefined) throw new HostsUnreachable([this.down]);
    return outcome;
  }
  batchesFrom(taskId: number, position: number) {
    if (this.recordsRead) return this.log.batchesFrom(taskId, position);
    return this.without(this.log.batchesFrom(taskId, position), (r) => r.executor === this.down);
  }
  loginsFrom(taskId: number, uin: number) {
    return this.without(this.log.loginsFrom(taskId, uin), (o) => this.queuedByDown.has(o.uin));
  }
  private without<T>(walk: AsyncIterable<T>, hidden: (item: T) => boolean) {
    return {
      unreachable: new Set([this.down]),
      async *[Symbol.asyncIterator]() {
        for await (const item of walk) if (!hidden(item)) yield item;
      },
    };
  }
}

/**
 * The report's single-source promise (docs/recipient-truth.md, "The delivery
 * report"): every row, CSV and NDJSON, is the per-recipient answer written
 * out, whatever the mix of removed, duplicated, online, offline, logged-in,
 * unrecorded and unreached recipients and the task's state, and whether a
 * host holding some of the records does not answer (production).
 */
describe('reportChunks', () => {
  let dir: TempDir;
  let lists: ListRepository;
  let records: LevelDeliveryRecordLog;
  let taskId = 0;

  beforeAll(async () => {
    dir = await makeTempDir('herald-report-rows-');
    lists = new ListRepository(dir.path);
    records = await LevelDeliveryRecordLog.open(`${dir.path}/records`);
  });
  afterAll(async () => {
    await records.close();
    await dir.remove();
  });

  /**
   * Writes the scenario's files and records under a fresh task id, its
   * filtered list laid out as `layout` says (the records follow the order
   * its positions take).
   */
  async function build(
    s: Scenario,
    layout: Layout = 'plain',
    rollout?: TaskRollout,
  ): Promise<{ task: Task; deps: RecipientFateDeps; distinct: number[] }> {
    const id = ++taskId;
    const distinct = s.recipients.map((_, i) => i * 3 + 1);
    const kept = distinct.filter((_, i) => s.recipients[i]!.kept);
    const listPath = lists.pathOf(`f_${id}`);
    const { order, report } = await writeLayout(id, kept, layout);
    const copies = distinct.flatMap((uin, i) => Array<number>(s.recipients[i]!.copies).fill(uin));
    const sections = [
      { reason: 'duplicate' as const, uins: Uint32Array.from(copies) },
      ...LINKS.map((reason, l) => ({
        reason,
        uins: Uint32Array.from(distinct.filter((_, i) => !s.recipients[i]!.kept && s.recipients[i]!.link === l)),
      })),
    ];
    await writeFile(removedPathOf(listPath), encodeRemovedSets(sections, true));
    let from = 0;
    const queuedByDown = new Set<number>();
    for (const batch of s.batches) {
      const count = Math.min(batch.count, kept.length - from);
      if (count <= 0) break;
      const uins = Uint32Array.from(order.slice(from, from + count));
      const online = uins.filter((uin) => s.recipients[(uin - 1) / 3]!.online);
      if (batch.recorded && batch.executor === s.down) for (const uin of uins) queuedByDown.add(uin);
      if (batch.recorded)
        await records.recordBatch({
          taskId: id,
          from,
          count,
          online: onlineBitsOf(uins, online),
          executor: batch.executor,
          at: NOW - 100 + from,
        });
      from += count;
    }
    const kinds: (LoginOutcomeKind | undefined)[] = [undefined, undefined, 'delivered', 'expired', 'over_frequency'];
    const outcomes = distinct.flatMap((uin, i) => {
      const outcome = kinds[s.recipients[i]!.login];
      return outcome === undefined ? [] : [{ taskId: id, uin, outcome, at: NOW - 10 + i }];
    });
    if (outcomes.length > 0) await records.recordLogins(outcomes);
    const units = [
      { unitNo: 0, start: 0, end: kept.length, checkpoint: s.checkpoint, executorId: 'e1' } as ExecutionUnit,
    ];
    const task = {
      id,
      state: s.state,
      filteredListId: `f_${id}`,
      expiresAt: NOW + s.expiresIn,
      report,
      ...(rollout === undefined ? {} : { rollout }),
    } as unknown as Task;
    const deps: RecipientFateDeps = {
      store: { listUnits: async () => units },
      lists,
      ...(s.withRecords
        ? {
            deliveryRecords:
              s.down === undefined ? records : new HostDownLog(records, s.down, queuedByDown, s.downRecordsRead),
          }
        : {}),
      clock: { now: () => NOW },
    };
    return { task, deps, distinct };
  }

  /**
   * The filtered list of task `id` and the order of its positions: a task of
   * one instant's sorted list (the plain path); a canary's sample then the
   * rest, each sorted; a local-time task's three groups one after another
   * (one skipped, one held for its quiet hours), this release's one file or
   * an earlier release's sorted list beside its delivery order.
   */
  async function writeLayout(
    id: number,
    kept: readonly number[],
    layout: Layout,
  ): Promise<{ order: number[]; report: object }> {
    const [f, g] = [lists.pathOf(`f_${id}`), lists.pathOf(`g_${id}`)];
    if (layout === 'plain') {
      await writeRecipientListFile(f, Uint32Array.from(kept), ListFlags.SORTED | ListFlags.UNIQUE);
      return { order: [...kept], report: {} };
    }
    const runOf = (uin: number) => ((uin * 2654435761) % 2 ** 32) % (layout === 'canary' ? 2 : 3);
    const runs = [0, 1, 2].map((run) => kept.filter((uin) => runOf(uin) === run));
    const order = runs.flat();
    if (layout === 'canary') {
      await writeRecipientListFile(f, Uint32Array.from(order), ListFlags.UNIQUE);
      return { order, report: { kept: kept.length, canary: { sample: runs[0]!.length } } };
    }
    const localGroups = runs.map((run, group) => {
      const start = runs.slice(0, group).reduce((n, r) => n + r.length, 0);
      const held = group === 1 ? { heldUntil: NOW + 60_000 } : {};
      return {
        offsetMinutes: group * 60,
        releaseAt: NOW - 1_000,
        start,
        end: start + run.length,
        skipped: group === 2,
        released: true,
        ...held,
      };
    });
    if (layout === 'local') {
      await writeRecipientListFile(f, Uint32Array.from(order), ListFlags.UNIQUE);
      await link(f, g);
    } else {
      await writeRecipientListFile(f, Uint32Array.from(kept), ListFlags.SORTED | ListFlags.UNIQUE);
      await writeRecipientListFile(g, Uint32Array.from(order));
    }
    return { order, report: { kept: kept.length, localGroups } };
  }

  async function reportLines(task: Task, deps: RecipientFateDeps, after: number, lines: ReportLines) {
    const chunks: Buffer[] = [];
    const cursor = after < 0 ? undefined : after;
    for await (const chunk of reportChunks(task, cursor, { ...deps, uinLimit: 2 ** 20 }, lines)) chunks.push(chunk);
    return Buffer.concat(chunks).toString('utf8');
  }

  it.each(LAYOUTS.flatMap((layout) => [[layout, 'one content'] as const, [layout, 'A/B'] as const]))(
    'writes every row as the per-recipient answer, CSV and NDJSON, from any cursor (%s, %s)',
    async (layout, rollout) => {
      await fc.assert(
        fc.asyncProperty(scenarioArbitrary, async (s) => {
          const { task, deps, distinct } = await build(s, layout, ROLLOUTS[rollout]);
          const rows = distinct.filter((uin) => uin > s.after);
          const answers = await Promise.all(rows.map((uin) => recipientFate(task, uin, deps)));
          const lines = csvLinesOf(task);
          const csv = await reportLines(task, deps, s.after, lines);
          expect(csv).toBe(lines.start + answers.map((row) => lines.line(row)).join(''));
          const json = ndjsonLines(task.id);
          expect(await reportLines(task, deps, s.after, json)).toBe(answers.map((row) => json.line(row)).join(''));
        }),
        { numRuns: layout === 'plain' ? 60 : 30 },
      );
    },
  );

  // The random scenarios are small, so their batches rarely hold a long run of rows; the report
  // writes such a run's plain rows by a path of their own, which these check among logins,
  // removals, rejections-free batches, gaps and (production) a host that does not answer. The
  // runs layouts share that path but for how a row is placed, so the host-down cases run on one.
  // An A/B task's tails are cached per variant as well: each layout runs as one, and the plain
  // one also with a host down, whose rows mix cached tails with those rendered one by one.
  const HOST_CASES = [
    [undefined, false],
    ['e,"2"', false],
    ['e,"2"', true],
  ] as const;
  const LONG_RUN_CASES = LAYOUTS.flatMap((layout) => {
    const oneContent = layout === 'plain' || layout === 'local' ? HOST_CASES : HOST_CASES.slice(0, 1);
    const ab = layout === 'plain' ? HOST_CASES.slice(0, 2) : HOST_CASES.slice(0, 1);
    return [
      ...oneContent.map(([down, read]) => [layout, down, read, 'one content'] as const),
      ...ab.map(([down, read]) => [layout, down, read, 'A/B'] as const),
    ];
  });
  it.each(LONG_RUN_CASES)(
    'writes long runs of rows as the per-recipient answer (%s, host down: %s, its records read: %s, %s)',
    async (layout, down, downRecordsRead, rollout) => {
      const s = longRunScenario(down, downRecordsRead);
      const { task, deps, distinct } = await build(s, layout, ROLLOUTS[rollout]);
      // Each uin's answer, asked once: a report from a cursor has the same rows as the whole one from there.
      const everyAnswer = await Promise.all(distinct.map((uin) => recipientFate(task, uin, deps)));
      for (const after of [-1, s.after]) {
        const answers = everyAnswer.filter(({ uin }) => uin > after);
        const lines = csvLinesOf(task);
        const csv = await reportLines(task, deps, after, lines);
        expect(csv).toBe(lines.start + answers.map((row) => lines.line(row)).join(''));
        const json = ndjsonLines(task.id);
        expect(await reportLines(task, deps, after, json)).toBe(answers.map((row) => json.line(row)).join(''));
      }
    },
  );

  it("names an A/B task's variants in a last CSV column, and leaves a task's without variants as it was", async () => {
    const s = longRunScenario(undefined, false);
    const plain = await build(s, 'plain');
    expect(csvLinesOf(plain.task)).toBe(CSV_LINES);
    const plainCsv = await reportLines(plain.task, plain.deps, -1, CSV_LINES);
    expect(plainCsv.split('\n')[0]).toBe('uin,position,fate,detail,at,executor,then_at');
    for (const layout of LAYOUTS) {
      const ab = await build(s, layout, AB_ROLLOUT);
      expect(csvLinesOf(ab.task)).toBe(VARIANT_CSV_LINES);
      const [header, ...rows] = (await reportLines(ab.task, ab.deps, -1, VARIANT_CSV_LINES)).split('\n');
      expect(header).toBe('uin,position,fate,detail,at,executor,then_at,variant');
      // Each variant is named, and only by rows with a position (a row outside the list names none).
      const named = new Set<string>();
      for (const row of rows.filter((line) => line !== '')) {
        const cells = row.split(',');
        const variant = cells.at(-1)!;
        if (cells[1] === '') expect(variant).toBe('');
        named.add(variant);
      }
      expect([...named].sort()).toEqual(['', 'a', 'b', 'c_2']);
    }
  });
});

/**
 * 1,500 uins, most kept, in 40 batches of 25 to 64 rows (a few unrecorded),
 * with logins, duplicates and removals among them.
 */
function longRunScenario(down: string | undefined, downRecordsRead: boolean): Scenario {
  return {
    state: 'COMPLETED',
    expiresIn: 1_000,
    recipients: Array.from({ length: 1_500 }, (_, i) => ({
      kept: i % 17 !== 0,
      link: i % LINKS.length,
      copies: i % 11 === 0 ? 1 : 0,
      online: i % 3 === 0,
      login: i % 7 === 0 ? 2 + (i % 3) : 0,
    })),
    batches: Array.from({ length: 40 }, (_, b) => ({
      count: 25 + b,
      recorded: b % 9 !== 4,
      executor: b % 2 === 0 ? 'e1' : 'e,"2"',
    })),
    checkpoint: 1_200,
    withRecords: true,
    down,
    downRecordsRead,
    after: 500,
  };
}
