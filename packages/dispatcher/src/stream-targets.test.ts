import { StreamTargets } from './stream-targets';

describe('StreamTargets', () => {
  const executors = ['e0', 'e1', 'e2', 'e3'];

  it("lists the executors a task was streamed to, once each, in the executors' order", () => {
    const targets = new StreamTargets(executors, 10);
    targets.remember(7, 'e2');
    targets.remember(7, 'e0');
    targets.remember(7, 'e2');
    targets.remember(8, 'e3');
    expect(targets.of(7)).toEqual(['e0', 'e2']);
    expect(targets.of(8)).toEqual(['e3']);
    expect(targets.of(9)).toEqual([]);
  });

  it('ignores an executor it was not given, and counts a duplicate id once', () => {
    const targets = new StreamTargets(['e0', 'e1', 'e0'], 10);
    targets.remember(1, 'unknown');
    expect(targets.of(1)).toEqual([]);
    targets.remember(1, 'e1');
    expect(targets.of(1)).toEqual(['e1']);
  });

  it('holds every executor of a large cluster (more than one 32-bit word)', () => {
    const many = Array.from({ length: 100 }, (_, i) => `e${i}`);
    const targets = new StreamTargets(many, 10);
    for (const id of many) if (Number(id.slice(1)) % 3 === 0) targets.remember(5, id);
    expect(targets.of(5)).toEqual(many.filter((_, i) => i % 3 === 0));
  });

  it('forgets the least recently streamed task past its capacity', () => {
    const targets = new StreamTargets(executors, 2);
    targets.remember(1, 'e0');
    targets.remember(2, 'e1');
    targets.remember(1, 'e2'); // task 1 streamed again: task 2 is now the oldest
    targets.remember(3, 'e3');
    expect(targets.of(2)).toEqual([]);
    expect(targets.of(1)).toEqual(['e0', 'e2']);
    expect(targets.of(3)).toEqual(['e3']);
  });
});
