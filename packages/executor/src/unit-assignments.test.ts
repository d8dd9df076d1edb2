import type { ExecutionUnit } from '@herald/core/task';
import { unitAssignments } from './unit-assignments';

/** A store whose units' executors the test sets, counting its reads; `fail` makes reads throw. */
function fakeStore() {
  const owners = new Map<number, string>([[0, 'me']]);
  const state = { reads: 0, fail: false };
  return {
    owners,
    state,
    store: {
      async listUnits(): Promise<ExecutionUnit[]> {
        state.reads++;
        if (state.fail) throw new Error('store down');
        return [...owners].map(([unitNo, executorId]) => ({ unitNo, executorId }) as ExecutionUnit);
      },
    },
  };
}

describe('unitAssignments', () => {
  let now = 1_000;
  const clock = { now: () => now };

  it('trusts "mine" for the refresh period, then reads again and sees a move', async () => {
    const { store, owners, state } = fakeStore();
    const units = unitAssignments(store, 'me', clock, 1_000);
    expect(await units.isMine(1, 0, now)).toBe(true);
    owners.set(0, 'other');
    now += 999;
    expect([await units.isMine(1, 0, now), state.reads]).toEqual([true, 1]);
    now += 1;
    expect([await units.isMine(1, 0, now), state.reads]).toEqual([false, 2]);
  });

  it('trusts "not mine" only from a read that began after the batch was taken up', async () => {
    const { store, owners, state } = fakeStore();
    owners.set(0, 'other');
    const units = unitAssignments(store, 'me', clock, 1_000);
    expect(await units.isMine(1, 0, now)).toBe(false);
    expect([await units.isMine(1, 0, now), state.reads]).toEqual([false, 1]); // same moment: that read counts
    owners.set(0, 'me'); // moved here meanwhile
    now += 1;
    expect([await units.isMine(1, 0, now), state.reads]).toEqual([true, 2]);
  });

  it('counts a unit the store does not list, or a store it cannot read, as mine', async () => {
    const { store, state } = fakeStore();
    const units = unitAssignments(store, 'me', clock, 1_000);
    expect(await units.isMine(1, 7, now)).toBe(true);
    state.fail = true;
    now += 5_000;
    expect(await units.isMine(2, 0, now)).toBe(true);
  });
});
