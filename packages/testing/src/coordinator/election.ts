import type { Coordinator, Election } from '@herald/core/ports';
import { waitFor } from '../wait-for';

/** Records what an election's listeners hear. */
function record(election: Election): boolean[] {
  const heard: boolean[] = [];
  election.onChange((leader) => heard.push(leader));
  return heard;
}

/**
 * Waits until exactly one of `elections` says it is leader and every
 * participant's `leader()` names it; returns it.
 */
export async function settledLeader(
  elections: readonly Election[],
  participants: readonly Election[] = elections,
): Promise<Election> {
  let found: Election | undefined;
  await waitFor(
    async () => {
      const leaders = elections.filter((e) => e.isLeader());
      if (leaders.length !== 1) return false;
      const named = await Promise.all(participants.map((p) => p.leader()));
      found = leaders[0];
      return named.every((id) => id === found!.candidateId);
    },
    { timeoutMs: 20_000, message: 'exactly one leader, named by every participant' },
  );
  return found!;
}

export function describeElection(connect: () => Promise<Coordinator>): void {
  describe('election', () => {
    async function threeCandidates(
      role = 'controller',
    ): Promise<{ coordinators: Coordinator[]; elections: Election[] }> {
      const coordinators = [await connect(), await connect(), await connect()];
      const elections: Election[] = [];
      for (const [i, c] of coordinators.entries()) elections.push(await c.elect(role, `controller-${i}`));
      return { coordinators, elections };
    }

    it('makes a sole candidate leader, and tells what it campaigns for', async () => {
      const c = await connect();
      const election = await c.elect('controller', 'controller-a');
      expect(election.role).toBe('controller');
      expect(election.candidateId).toBe('controller-a');
      await settledLeader([election]);
      expect(await election.leader()).toBe('controller-a');
    });

    it('of three candidates makes exactly one leader, named by leader() on every participant', async () => {
      const { elections } = await threeCandidates();
      const leader = await settledLeader(elections);
      expect(elections.filter((e) => e.isLeader())).toEqual([leader]);
      for (const e of elections) expect(await e.leader()).toBe(leader.candidateId);
    });

    it('does not hand leadership to a candidate that joins later', async () => {
      const { coordinators, elections } = await threeCandidates();
      const leader = await settledLeader(elections);
      const heard = record(leader);
      const late = await coordinators[1]!.elect('controller', 'controller-late');
      const newcomer = await (await connect()).elect('controller', 'controller-newcomer');
      for (const e of [...elections, late, newcomer]) expect(await e.leader()).toBe(leader.candidateId);
      expect(late.isLeader()).toBe(false);
      expect(newcomer.isLeader()).toBe(false);
      expect(leader.isLeader()).toBe(true);
      expect(heard).toEqual([]);
    });

    it('moves leadership to another candidate when the leader resigns, and tells the listeners', async () => {
      const { elections } = await threeCandidates();
      const leader = await settledLeader(elections);
      const heard = new Map(elections.map((e) => [e, record(e)]));
      await leader.resign();
      expect(leader.isLeader()).toBe(false);
      const rest = elections.filter((e) => e !== leader);
      const next = await settledLeader(
        rest,
        elections.filter((e) => e !== leader),
      );
      expect(next).not.toBe(leader);
      expect(heard.get(leader)).toEqual([false]);
      expect(heard.get(next)).toEqual([true]);
      for (const e of rest.filter((e) => e !== next)) expect(heard.get(e)).toEqual([]);
      expect(await leader.leader()).toBe(next.candidateId);
    });

    it("moves leadership to another candidate when the leader's coordinator closes", async () => {
      const { coordinators, elections } = await threeCandidates();
      const leader = await settledLeader(elections);
      const index = elections.indexOf(leader);
      const heard = new Map(elections.map((e) => [e, record(e)]));
      await coordinators[index]!.close();
      expect(leader.isLeader()).toBe(false);
      expect(heard.get(leader)).toEqual([false]);
      const rest = elections.filter((e) => e !== leader);
      const next = await settledLeader(rest);
      expect(heard.get(next)).toEqual([true]);
    });

    it('keeps walking down the line: every candidate leads in turn as the leaders resign', async () => {
      const { elections } = await threeCandidates();
      const led: string[] = [];
      let remaining = [...elections];
      while (remaining.length > 0) {
        const leader = await settledLeader(remaining);
        led.push(leader.candidateId);
        await leader.resign();
        remaining = remaining.filter((e) => e !== leader);
      }
      expect([...led].sort()).toEqual(['controller-0', 'controller-1', 'controller-2']);
      expect(await elections[0]!.leader()).toBeUndefined();
    });

    it('leaves the leader alone when another candidate resigns, and a resigned candidate never leads', async () => {
      const { elections } = await threeCandidates();
      const leader = await settledLeader(elections);
      const [quitter, stayer] = elections.filter((e) => e !== leader);
      await quitter!.resign();
      await quitter!.resign();
      expect(await stayer!.leader()).toBe(leader.candidateId);
      expect(leader.isLeader()).toBe(true);
      await leader.resign();
      const next = await settledLeader([leader, quitter!, stayer!], [stayer!]);
      expect(next).toBe(stayer);
    });

    it('keeps roles apart: each role has its own leader', async () => {
      const [a, b] = [await connect(), await connect()];
      const aController = await a.elect('controller', 'a');
      const bCron = await b.elect('cron', 'b');
      const bController = await b.elect('controller', 'b');
      const aCron = await a.elect('cron', 'a');
      expect(await settledLeader([aController, bController])).toBe(aController);
      expect(await settledLeader([aCron, bCron])).toBe(bCron);
      await aController.resign();
      expect(await settledLeader([bController])).toBe(bController);
      expect(await aCron.leader()).toBe('b');
    });

    it('stops calling a listener once it is unsubscribed', async () => {
      const { elections } = await threeCandidates();
      const leader = await settledLeader(elections);
      const rest = elections.filter((e) => e !== leader);
      const heard: boolean[] = [];
      const offs = rest.map((e) => e.onChange((l) => heard.push(l)));
      for (const off of offs) off();
      await leader.resign();
      await settledLeader(rest);
      expect(heard).toEqual([]);
    });
  });
}
