import { join } from 'node:path';
import { allocateTasks } from '@herald/core/apta';
import { uniqueSorted } from '@herald/core/uins';
import { syntheticAudience } from '@herald/audience';
import type { ProcessCluster, TempDir } from '@herald/testing';
import { actualOutcome, expectedOutcome } from './outcome';
import {
  adoptedATask,
  broadcastThroughOutage,
  startThreeSchedulerCluster,
  tearDown,
  THREE_SCHEDULERS,
  uniqueNames,
} from './scenario';

/**
 * APTA failover with real processes: three schedulers agree on a ring; the
 * scheduler that owns a running broadcast is killed with SIGKILL; the others
 * notice at once (its connections closed, its address refuses new ones:
 * APTA's peerGone), move its arc alone to its successors (the interim ring,
 * while the whole ring goes through SILENCE to a ring of two), and the new
 * owner claims the task (epoch + 1) and resumes its units from their
 * checkpoints. Nothing is lost; a recipient delivered twice can only be
 * one whose batch was in flight when the owner died (same idempotency key).
 */
jest.setTimeout(240_000);

describe('scheduler failover (APTA)', () => {
  let dir: TempDir;
  let cluster: ProcessCluster;
  const names = uniqueNames('failover');
  const audience = syntheticAudience({ recipients: 300_000, onlineFraction: 0.3, uinLimit: 2 ** 24, seed: 11 });

  beforeAll(async () => {
    ({ dir, cluster } = await startThreeSchedulerCluster('failover', names, audience, {
      dispatcher: { batchSize: 1000, unitSize: 25_000 },
    }));
  });

  afterAll(async () => {
    await tearDown(cluster, names, dir);
  });

  it('resumes a broadcast whose scheduler was killed on a survivor, losing nobody', async () => {
    let killed = '';
    const { task, stateAtOutage } = await broadcastThroughOutage(cluster, audience, async () => {
      // The task id is known once it is sending: the first task of this database is 1.
      // APTA's allocation, not a default HashRing: the vnode counts differ, and so can the owner.
      killed = allocateTasks(THREE_SCHEDULERS).ownerOf(1)!;
      await cluster.stop(
        cluster.processes.find((p) => p.id === killed)!,
        'SIGKILL',
      );
    });
    expect(stateAtOutage).toBe('SENDING');
    expect(task.state).toBe('COMPLETED');

    const survivors = THREE_SCHEDULERS.filter((id) => id !== killed);
    const adoptedBy = cluster.processes
      .filter((p) => survivors.includes(p.id) && adoptedATask(p.output))
      .map((p) => p.id);
    expect(adoptedBy.length).toBeGreaterThan(0);
    // The dead owner was seen gone, not merely silent: the survivors owned by the interim ring before the next one.
    for (const id of survivors)
      expect([
        id,
        /ring of schedulers changed[^\n]*"interim":true/.test(cluster.processes.find((p) => p.id === id)!.output),
      ]).toEqual([id, true]);

    const { online, offline } = expectedOutcome(audience);
    const { delivered, queued } = await actualOutcome(cluster, join(dir.path, 'data'), task.id);
    const distinct = uniqueSorted(delivered.slice());
    expect(distinct).toEqual(online); // nobody lost, nobody extra
    expect(uniqueSorted(queued.slice())).toEqual(offline);
    const repeats = delivered.length - distinct.length;
    // Only batches in flight at the kill can repeat: at most one batch (1,000 uins) per unit that was streaming.
    const units = Math.ceil(audience.list.length / 25_000);
    expect(repeats).toBeLessThanOrEqual(units * 1000);
    process.stdout.write(
      `failover: ${killed} killed; adopted by ${adoptedBy.join(', ')}; ${repeats} repeated deliveries of ${delivered.length}\n`,
    );
  });
});
