import { EpochFloor } from './epoch-floor';

describe('EpochFloor', () => {
  it('admits the first epoch of a task, the same or a higher one, and refuses a lower one', () => {
    const floor = new EpochFloor();
    expect(floor.admit(1, 3)).toBe(true);
    expect(floor.admit(1, 3)).toBe(true);
    expect(floor.admit(1, 2)).toBe(false);
    expect(floor.get(1)).toBe(3);
    expect(floor.admit(1, 5)).toBe(true);
    expect(floor.admit(1, 4)).toBe(false);
    expect(floor.admit(2, 1)).toBe(true); // tasks are apart
  });

  it('forgets the least recently seen task past its capacity', () => {
    const floor = new EpochFloor(2);
    floor.admit(1, 5);
    floor.admit(2, 5);
    floor.admit(1, 5); // seen again: task 2 is now the oldest
    floor.admit(3, 5);
    expect(floor.size).toBe(2);
    expect(floor.get(2)).toBeUndefined();
    expect(floor.get(1)).toBe(5);
    expect(floor.admit(2, 1)).toBe(true); // forgotten: a stale epoch passes this check
  });
});
