import { isHeraldError } from '@herald/core';
import type { Coordinator } from '@herald/core/ports';
import { cp, describeCheckpoints } from './checkpoints';
import { useFreshCluster, type CoordinatorClusterFactory } from './cluster';
import { describeElection, settledLeader } from './election';

/** Expects `promise` to reject with a HeraldError (any code). */
async function rejectsWithHeraldError(promise: Promise<unknown>): Promise<void> {
  const outcome = await promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  if (outcome.ok) throw new Error(`expected a HeraldError, but the call resolved to ${JSON.stringify(outcome.value)}`);
  if (!isHeraldError(outcome.error))
    throw new Error(`expected a HeraldError, got ${String(outcome.error)}`, { cause: outcome.error });
}

function describeClose(connect: () => Promise<Coordinator>): void {
  describe('close', () => {
    it('fails every call after close with a HeraldError; closing again is harmless', async () => {
      const c = await connect();
      const election = await c.elect('controller', 'a');
      await c.putCheckpoint(cp(1, 0, 1, 10));
      await c.close();
      await c.close();
      expect(election.isLeader()).toBe(false);
      await rejectsWithHeraldError(c.putCheckpoint(cp(1, 0, 1, 20)));
      await rejectsWithHeraldError(c.getCheckpoint(1, 0));
      await rejectsWithHeraldError(c.listCheckpoints());
      await rejectsWithHeraldError(c.listCheckpoints(1));
      await rejectsWithHeraldError(c.removeCheckpoint(1, 0, 0));
      await rejectsWithHeraldError(c.elect('controller', 'b'));
      await rejectsWithHeraldError(election.leader());
    });

    it('keeps what a closed participant wrote, for the others', async () => {
      const [a, b] = [await connect(), await connect()];
      await a.putCheckpoint(cp(1, 0, 1, 10));
      const election = await a.elect('controller', 'a');
      await a.close();
      expect((await b.getCheckpoint(1, 0))?.checkpoint).toBe(10);
      const other = await b.elect('controller', 'b');
      expect(await settledLeader([election, other], [other])).toBe(other);
    });
  });
}

/**
 * The Coordinator contract as tests. Every adapter's test file calls this
 * with a factory that opens a fresh, empty namespace per test; each
 * `connect()` on it is one participant (a separate session, as another
 * process would be), since an election needs several.
 *
 * @example
 *   coordinatorConformance('LocalCoordinator', async () => {
 *     const cluster = createLocalCoordinatorCluster();
 *     return { connect: () => cluster.connect(), cleanup: async () => {} };
 *   });
 */
export function coordinatorConformance(name: string, open: CoordinatorClusterFactory): void {
  describe(`Coordinator conformance: ${name}`, () => {
    const connect = useFreshCluster(open);
    describeCheckpoints(connect);
    describeElection(connect);
    describeClose(connect);
  });
}

export type { CoordinatorCluster, CoordinatorClusterFactory } from './cluster';
