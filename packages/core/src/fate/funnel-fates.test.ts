import fc from 'fast-check';
import type { TaskState } from '../task/task-machine';
import {
  bitAt,
  buildFunnel,
  CoverageCounter,
  deliveryAcrossHosts,
  keptPositionFate,
  onlineBitsOf,
  rejectionAt,
  rejectionsOf,
  type DeliveryFacts,
  type DeliveryRecord,
  type FunnelStage,
} from './index';

/** Random batch records over a task's kept positions: gaps, overlaps, online bits, rejections among the online ones. */
const recordsArbitrary = (kept: number) =>
  fc.array(
    fc
      .record({
        from: fc.nat({ max: kept + 4 }),
        count: fc.integer({ min: 1, max: 12 }),
        seed: fc.array(fc.constantFrom('offline', 'online', 'gone', 'bad_token'), { minLength: 12, maxLength: 12 }),
      })
      .map(({ from, count, seed }): DeliveryRecord => {
        const uins = Uint32Array.from({ length: count }, (_, i) => i);
        const online = uins.filter((i) => seed[i] !== 'offline');
        const rejected = Array.from(online)
          .filter((i) => seed[i] === 'gone' || seed[i] === 'bad_token')
          .map((uin) => ({ uin, reason: seed[uin]! }));
        const rejections = rejectionsOf(uins, rejected);
        return {
          taskId: 1,
          from,
          count,
          online: onlineBitsOf(uins, online),
          executor: 'e1',
          at: 5,
          ...(rejections === undefined ? {} : { rejected: rejections }),
        };
      }),
    { maxLength: 8 },
  );

/** What the records say of a position, as the lookup and the report read it: the first record holding it. */
function factsAt(records: readonly DeliveryRecord[], position: number): DeliveryFacts {
  const record = records.find((r) => r.from <= position && position < r.from + r.count);
  if (record === undefined) return { kind: 'none' };
  const online = bitAt(record.online, position - record.from);
  const rejected = online && record.rejected ? rejectionAt(record.rejected, position - record.from) : undefined;
  return { kind: 'record', online, at: record.at, executor: record.executor, ...(rejected ? { rejected } : {}) };
}

describe('buildFunnel against keptPositionFate', () => {
  it("counts each fate stage as the kept positions' fates add up, rejected ones by reason", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40 }),
        fc.constantFrom<TaskState>('SENDING', 'PAUSED', 'CANCELLED'),
        (kept, taskState) =>
          fc.assert(
            fc.property(recordsArbitrary(kept), (unsorted) => {
              const records = [...unsorted].sort((a, b) => a.from - b.from);
              const counter = new CoverageCounter(kept);
              for (const record of records) counter.add(record);
              const facts = { taskState, expiresAt: 100, now: 50 };
              const stages = buildFunnel({
                ...facts,
                filtered: true,
                report: { total: kept, kept, removed: {} },
                delivery: { kind: 'counted', coverage: counter.finish([]) },
                logins: { kind: 'counted', counts: { delivered: 0, expired: 0, over_frequency: 0 } },
              });
              const byFate: Record<string, number> = {};
              const byReason: Record<string, number> = {};
              for (let position = 0; position < kept; position++) {
                const fate = keptPositionFate({
                  ...facts,
                  delivery: factsAt(records, position),
                  login: { kind: 'none' },
                });
                byFate[fate.fate] = (byFate[fate.fate] ?? 0) + 1;
                if (fate.fate === 'rejected') byReason[fate.reason] = (byReason[fate.reason] ?? 0) + 1;
              }
              const stage = (name: string): FunnelStage => stages.find((s) => s.stage === name && s.of === 'kept')!;
              for (const name of ['delivered_online', 'rejected', 'queued_offline', 'not_reached'])
                expect([name, stage(name).count]).toEqual([name, byFate[name] ?? 0]);
              expect(stage('rejected').byReason).toEqual(byReason);
            }),
            { numRuns: 20 },
          ),
      ),
      { numRuns: 50 },
    );
  });

  it('counts what the per-recipient answers say while a host is down: its part unknown, the rest as recorded', () => {
    const unitsArbitrary = (kept: number) =>
      fc
        .tuple(
          fc.integer({ min: 0, max: kept }),
          fc.array(fc.record({ host: fc.constantFrom('e1', 'e2'), passed: fc.nat({ max: 40 }) }), {
            minLength: 2,
            maxLength: 2,
          }),
        )
        .map(([split, [a, b]]) => [
          { start: 0, end: split, checkpoint: Math.min(split, a!.passed), executorId: a!.host },
          { start: split, end: kept, checkpoint: Math.min(kept, split + b!.passed), executorId: b!.host },
        ]);
    const down = new Set(['e2']);
    fc.assert(
      fc.property(
        fc
          .integer({ min: 0, max: 40 })
          .chain((kept) => fc.tuple(fc.constant(kept), recordsArbitrary(kept), unitsArbitrary(kept))),
        fc.constantFrom<TaskState>('SENDING', 'COMPLETED'),
        ([kept, unsorted, units], taskState) => {
          // The records e1 (which answered) gave; e2's are not read.
          const records = [...unsorted].sort((a, b) => a.from - b.from);
          const counter = new CoverageCounter(kept);
          for (const record of records) counter.add(record);
          const facts = { taskState, expiresAt: 100, now: 50 };
          const stages = buildFunnel({
            ...facts,
            filtered: true,
            report: { total: kept, kept, removed: {} },
            delivery: { kind: 'counted', coverage: counter.finish(units, down) },
            logins: { kind: 'counted', counts: { delivered: 0, expired: 0, over_frequency: 0 } },
          });
          const byFate: Record<string, number> = {};
          for (let position = 0; position < kept; position++) {
            const unit = units.find((u) => u.start <= position && position < u.end)!;
            const found = factsAt(records, position);
            // As the lookup: no record, but a checkpoint passed it: confirmed without one (unavailable).
            const recorded: DeliveryFacts =
              found.kind === 'none' && position < unit.checkpoint
                ? { kind: 'unavailable', reason: 'confirmed without a record' }
                : found;
            const delivery = deliveryAcrossHosts(recorded, position, units, down);
            const fate = keptPositionFate({ ...facts, delivery, login: { kind: 'none' } });
            byFate[fate.fate] = (byFate[fate.fate] ?? 0) + 1;
          }
          const stage = (name: string): FunnelStage => stages.find((s) => s.stage === name && s.of === 'kept')!;
          for (const name of ['delivered_online', 'queued_offline', 'not_reached', 'unknown'])
            expect([name, stage(name).count]).toEqual([name, byFate[name] ?? 0]);
        },
      ),
      { numRuns: 300 },
    );
  });
});
