/**
 * bench/apta-scale.js at a small size (20 members, 10^5 task ids), so the
 * script cannot rot: every scenario converges and holds still, a kill within
 * the goal of 2 x (dead interval + silence period), and one join or leave
 * moves about 1/n of the tasks, all to or from that member. The simulation is
 * seeded and its clock simulated: the numbers are the same on every machine.
 */
import { APTA_VNODES, compileAptaConfig } from '@herald/core/apta';

// The bench modules are plain JavaScript without types: required, typed here as far as the tests use them.
interface ScenarioRow {
  scenario: string;
  tookMs: number | undefined;
  held: boolean;
  steps: number;
}
const { simulateMembership, measureRing, memberIds } = require('../apta-scale') as {
  simulateMembership(args: { members: number; seed: number; latencyMs: number; jitterMs: number }): {
    rows: ScenarioRow[];
    killGoalMs: number;
  };
  measureRing(args: { members: number; tasks: number; vnodes: number; seed: number }): {
    maxOverMean: number;
    joinShare: number;
    leaveShare: number;
    strayMoves: number;
  };
  memberIds(n: number): string[];
};
const { SimulatedNetwork } = require('../apta-network') as {
  SimulatedNetwork: new (options: { config: object; seed?: number }) => {
    start(id: string, at?: number): void;
    partition(a: string[], b: string[]): void;
    expect(...groups: string[][]): void;
    converged(): boolean;
    runUntil(done: () => boolean, limit: number): number | undefined;
  };
};

const config = compileAptaConfig();

describe('bench/apta-scale.js, 20 members', () => {
  it('converges in every scenario, then holds still; a kill within 2 x (dead interval + silence period)', () => {
    const { rows, killGoalMs } = simulateMembership({ members: 20, seed: 1, latencyMs: 5, jitterMs: 5 });
    expect(rows.map((r) => r.scenario)).toEqual([
      'cold start',
      'one member killed',
      'the killed member restarted',
      'partition 10/10: each side alone',
      'partition 10/10 healed',
    ]);
    for (const row of rows) {
      expect([row.scenario, row.tookMs !== undefined, row.held]).toEqual([row.scenario, true, true]);
      // Every change of membership reaches the ring through one full silence period, never sooner.
      expect([row.scenario, row.tookMs! >= config.silencePeriodMs]).toEqual([row.scenario, true]);
    }
    expect(killGoalMs).toBe(2 * (config.deadIntervalMs + config.silencePeriodMs));
    expect(rows[1]!.tookMs!).toBeLessThanOrEqual(killGoalMs);
  });

  it('moves about 1/n of the tasks on one join or leave, none between other members', () => {
    const ring = measureRing({ members: 20, tasks: 100_000, vnodes: APTA_VNODES, seed: 1 });
    expect(ring.joinShare).toBeGreaterThan(0.75 / 21);
    expect(ring.joinShare).toBeLessThan(1.25 / 21);
    expect(ring.leaveShare).toBeGreaterThan(0.75 / 20);
    expect(ring.leaveShare).toBeLessThan(1.25 / 20);
    expect(ring.strayMoves).toBe(0);
    expect(ring.maxOverMean).toBeGreaterThan(1);
  });

  it('does not call a cluster converged while one member is cut off from the rest', () => {
    const ids = memberIds(3);
    const net = new SimulatedNetwork({ config });
    for (const id of ids) net.start(id, 0);
    net.partition(ids.slice(0, 1), ids.slice(1));
    net.expect(ids);
    expect(net.runUntil(() => net.converged(), 60_000)).toBeUndefined();
    net.expect(ids.slice(0, 1), ids.slice(1)); // the lone one founds its own cluster: each side converges alone
    expect(net.runUntil(() => net.converged(), 120_000)).toBeDefined();
  });
});
