import { ValidationError } from '../errors';
import { allocateTasks, ownershipMoves } from './allocation';

const TASKS = 100_000;
const taskIds = Array.from({ length: TASKS }, (_, i) => i + 1);
const members = (n: number) => Array.from({ length: n }, (_, i) => `scheduler-${i + 1}`);

describe('allocate', () => {
  it('gives every task an owner among the members, the same in every process whatever the member order', () => {
    const a = allocateTasks(['s3', 's1', 's2']);
    const b = allocateTasks(['s2', 's3', 's1']);
    expect(a.members).toEqual(['s1', 's2', 's3']);
    expect(ownershipMoves(a, b, taskIds)).toEqual([]);
    expect(new Set(taskIds.map((id) => a.ownerOf(id)))).toEqual(new Set(['s1', 's2', 's3']));
  });

  it('owns nothing with no members', () => {
    expect(allocateTasks([]).ownerOf(42)).toBeUndefined();
  });

  it('rejects a bad member id or vnode count', () => {
    expect(() => allocateTasks(['ok', ''])).toThrow(ValidationError);
    expect(() => allocateTasks(['a b'])).toThrow(ValidationError);
    expect(() => allocateTasks(['a'], 0)).toThrow(ValidationError);
    expect(() => allocateTasks(['a'], 2.5)).toThrow(ValidationError);
  });
});

describe('a membership change moves only the changed member`s share', () => {
  describe.each([2, 3, 5, 8, 16])('%i members', (n) => {
    it(`adding one moves ~1/${n + 1} of ${TASKS} tasks, every one of them to the new member`, () => {
      const before = allocateTasks(members(n));
      const after = allocateTasks(members(n + 1));
      const moves = ownershipMoves(before, after, taskIds);
      const share = moves.length / TASKS;
      expect(share).toBeGreaterThan(0.5 / (n + 1));
      expect(share).toBeLessThan(1.6 / (n + 1));
      expect(new Set(moves.map((m) => m.to))).toEqual(new Set([`scheduler-${n + 1}`]));
    });

    it(`removing one of ${n + 1} moves ~1/${n + 1}, every one of them away from the removed member`, () => {
      const removed = `scheduler-${Math.ceil((n + 1) / 2)}`;
      const before = allocateTasks(members(n + 1));
      const after = allocateTasks(members(n + 1).filter((m) => m !== removed));
      const moves = ownershipMoves(before, after, taskIds);
      const share = moves.length / TASKS;
      expect(share).toBeGreaterThan(0.5 / (n + 1));
      expect(share).toBeLessThan(1.6 / (n + 1));
      expect(new Set(moves.map((m) => m.from))).toEqual(new Set([removed]));
      // And exactly the removed member's tasks moved.
      expect(moves.length).toBe(taskIds.filter((id) => before.ownerOf(id) === removed).length);
    });
  });

  it('reports every move with its old and new owner, in the order given', () => {
    const before = allocateTasks(['s1', 's2']);
    const after = allocateTasks(['s1', 's2', 's3']);
    const moves = ownershipMoves(before, after, [...taskIds].reverse());
    for (const m of moves.slice(0, 100))
      expect(m).toEqual({ taskId: m.taskId, from: before.ownerOf(m.taskId), to: 's3' });
    const ids = moves.map((m) => m.taskId);
    expect(ids).toEqual([...ids].sort((x, y) => y - x));
    expect(ownershipMoves(allocateTasks([]), after, [1, 2])).toEqual([
      { taskId: 1, from: undefined, to: after.ownerOf(1) },
      { taskId: 2, from: undefined, to: after.ownerOf(2) },
    ]);
  });
});
