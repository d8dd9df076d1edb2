import { join } from 'node:path';
import { allocateTasks } from '@herald/core/apta';
import { uniqueSorted } from '@herald/core/uins';
import { syntheticAudience } from '@herald/audience';
import { authHeaders, type ProcessCluster, type TempDir, waitFor } from '@herald/testing';
import { actualOutcome, expectedOutcome } from './outcome';
import {
  adoptedATask,
  broadcastThroughOutage,
  expectManagementLocked,
  startThreeSchedulerCluster,
  tearDown,
  THREE_SCHEDULERS,
  uniqueNames,
} from './scenario';

/**
 * A network partition with real processes: the scheduler that owns a running
 * broadcast is cut off (its management endpoint's fault switch drops every
 * ZeroMQ message in and out, membership included). It goes OFFLINE, the
 * survivors agree on a ring of two and one of them claims the task (epoch + 1)
 * and finishes it; the cut-off scheduler cannot deliver meanwhile, and whatever
 * it sends after the heal carries its old epoch and is refused. When the
 * partition heals it rejoins through JOINING, ONLINE and SILENCE to WORKING.
 * Nobody is lost; a repeat can only be a batch in flight at the cut.
 */
jest.setTimeout(300_000);

describe('scheduler partition (APTA)', () => {
  let dir: TempDir;
  let cluster: ProcessCluster;
  const names = uniqueNames('partition');
  const audience = syntheticAudience({ recipients: 400_000, onlineFraction: 0.3, uinLimit: 2 ** 24, seed: 12 });

  beforeAll(async () => {
    ({ dir, cluster } = await startThreeSchedulerCluster('partition', names, audience, {
      dispatcher: { batchSize: 1000, unitSize: 25_000 },
      scheduler: { tickMs: 100, unitStallMs: 2000 },
    }));
  });

  afterAll(async () => {
    await tearDown(cluster, names, dir);
  });

  it('refuses every unauthenticated management request, and every APTA member stays WORKING (docs/security.md)', async () => {
    // First, with every process up: the partition below then runs on a cluster that was swept.
    const statuses = await expectManagementLocked(cluster);
    const members = statuses.filter((s) => s.membership?.apta === true).map((s) => s.id);
    expect(members.sort()).toEqual(
      cluster.processes
        .filter((p) => !['controller', 'presence'].includes(p.tier))
        .map((p) => p.id)
        .sort(),
    );
    // The state each member reports of itself; a deadline rather than one look, as the cluster has only just formed its ring.
    const notWorking = async () => {
      const states = await Promise.all(
        members.map(
          async (id) =>
            [
              id,
              (
                (await (
                  await fetch(`http://${cluster.managementAddress(id)}/status`, {
                    headers: cluster.managementHeaders(),
                  })
                ).json()) as { membership: { state: string } }
              ).membership.state,
            ] as const,
        ),
      );
      return states.filter(([, state]) => state !== 'WORKING').map(([id, state]) => `${id} ${state}`);
    };
    let last: string[] = [];
    await waitFor(async () => (last = await notWorking()).length === 0, {
      timeoutMs: 15_000,
      message: 'every APTA member WORKING after the sweep',
    }).catch(() => undefined);
    expect(last).toEqual([]);
  });

  it("moves a cut-off scheduler's broadcast to a survivor, fences the cut-off one, and takes it back in when the partition heals", async () => {
    // The first task of this database is 1; APTA's allocation, not a default HashRing (the vnode counts differ).
    const owner = allocateTasks(THREE_SCHEDULERS).ownerOf(1)!;
    const cutOff = cluster.processes.find((p) => p.id === owner)!;
    const survivors = cluster.processes.filter((p) => THREE_SCHEDULERS.includes(p.id) && p.id !== owner);
    const adopted = () => survivors.some((p) => adoptedATask(p.output));

    const { task, stateAtOutage } = await broadcastThroughOutage(cluster, audience, async () => {
      await cluster.admin('fault', owner, '--traffic-cut', 'on');
      await waitFor(adopted, {
        timeoutMs: 30_000,
        intervalMs: 50,
        message: `no survivor adopted the task of ${owner}\n${cluster.logs()}`,
      });
      // The cut-off scheduler noticed it is alone: OFFLINE, so it takes no new ring.
      await waitFor(() => /"to":"OFFLINE"/.test(cutOff.output), {
        timeoutMs: 30_000,
        message: `${owner} never went OFFLINE\n${cutOff.output}`,
      });
      const lengthAtHeal = cutOff.output.length;
      await cluster.admin('fault', owner, '--traffic-cut', 'off');
      // Back through JOINING, ONLINE and SILENCE to WORKING, and on the ring of three again.
      await waitFor(() => /"to":"WORKING"/.test(cutOff.output.slice(lengthAtHeal)), {
        timeoutMs: 30_000,
        message: `${owner} did not rejoin\n${cutOff.output.slice(lengthAtHeal)}`,
      });
      const rejoined = cutOff.output.slice(lengthAtHeal);
      const order = ['"to":"JOINING"', '"to":"ONLINE"', '"to":"SILENCE"', '"to":"WORKING"'].map((s) =>
        rejoined.indexOf(s),
      );
      expect(order.every((at, i) => at >= 0 && (i === 0 || at > order[i - 1]!))).toBe(true);
    });
    expect(stateAtOutage).toBe('SENDING');
    expect(task.state).toBe('COMPLETED');
    // Cut off, not dead: its connections stayed up, so nobody took it for gone (no interim ring); it left the ring
    // by the dead interval and a silence, as a partitioned member must.
    for (const p of survivors) expect([p.id, /"interim":true/.test(p.output)]).toEqual([p.id, false]);

    // Fenced: the cut-off scheduler found in the store that the task has a newer owner and dropped it.
    await waitFor(() => /lost ownership of a task/.test(cutOff.output), {
      timeoutMs: 30_000,
      message: `${owner} never noticed it lost the task\n${cutOff.output.slice(-3000)}`,
    });

    type ClusterView = { ring: string[]; members: { id: string; state: string }[] };
    await waitFor(
      async () => {
        const now = (await (
          await fetch(`${cluster.url}/api/v1/cluster`, { headers: authHeaders() })
        ).json()) as ClusterView;
        return (
          now.ring.length === 3 &&
          THREE_SCHEDULERS.every((id) => now.members.find((m) => m.id === id)?.state === 'WORKING')
        );
      },
      { timeoutMs: 30_000, message: 'the cluster view never showed three WORKING schedulers again' },
    );

    const { online, offline } = expectedOutcome(audience);
    const { delivered, queued } = await actualOutcome(cluster, join(dir.path, 'data'), task.id);
    const distinct = uniqueSorted(delivered.slice());
    expect(distinct).toEqual(online); // nobody lost, nobody extra
    expect(uniqueSorted(queued.slice())).toEqual(offline);
    const repeats = delivered.length - distinct.length;
    const units = Math.ceil(audience.list.length / 25_000);
    expect(repeats).toBeLessThanOrEqual(units * 1000);
    const fenced = (
      cluster.processes
        .map((p) => p.output)
        .join('\n')
        .match(/lost ownership of a task|unit.run of a deposed owner dropped|batch of a deposed owner dropped/g) ?? []
    ).length;
    process.stdout.write(
      `partition: ${owner} cut off and healed; ${repeats} repeated deliveries of ${delivered.length}; ${fenced} fenced writes or sends logged\n`,
    );
  });
});
