import { PriorityQueue } from './priority-queue';
import { seededRandom } from '../random';

interface Item {
  id: number;
  key: number;
}

function drain<T>(queue: PriorityQueue<T>): T[] {
  const out: T[] = [];
  for (let item = queue.pop(); item !== undefined; item = queue.pop()) out.push(item);
  return out;
}

describe('PriorityQueue', () => {
  it('is empty when new', () => {
    const queue = new PriorityQueue<string>();
    expect(queue.size).toBe(0);
    expect(queue.peek()).toBeUndefined();
    expect(queue.pop()).toBeUndefined();
    expect(queue.items()).toEqual([]);
  });

  it.each([1, 2, 3, 10, 100, 1000])('pops %i random items highest key first, as a sort would order them', (n) => {
    const random = seededRandom(n);
    const queue = new PriorityQueue<Item>();
    const items: Item[] = [];
    for (let id = 0; id < n; id++) {
      // Few distinct keys, so ties are common.
      const item = { id, key: Math.floor(random() * (n / 2 + 1)) - n / 4 };
      items.push(item);
      queue.push(item, item.key);
    }
    expect(queue.size).toBe(n);
    const popped: Item[] = [];
    while (queue.size > 0) {
      const top = queue.peek();
      const item = queue.pop()!;
      expect(item).toBe(top);
      popped.push(item);
    }
    expect(popped.map((i) => i.key)).toEqual(items.map((i) => i.key).sort((a, b) => b - a));
    expect(popped.map((i) => i.id).sort((a, b) => a - b)).toEqual(items.map((i) => i.id));
    expect(queue.pop()).toBeUndefined();
  });

  it('keeps order when pushes and pops interleave', () => {
    const random = seededRandom(7);
    const queue = new PriorityQueue<number>();
    const model: number[] = [];
    for (let step = 0; step < 5000; step++) {
      if (random() < 0.6 || model.length === 0) {
        const key = random() * 1000;
        queue.push(key, key);
        model.push(key);
      } else {
        const max = Math.max(...model);
        model.splice(model.indexOf(max), 1);
        expect(queue.pop()).toBe(max);
      }
      expect(queue.size).toBe(model.length);
    }
    expect(drain(queue)).toEqual(model.sort((a, b) => b - a));
  });

  it('removes every matching item, returns how many, and keeps heap order for the rest', () => {
    const random = seededRandom(11);
    const queue = new PriorityQueue<Item>();
    const items = Array.from({ length: 500 }, (_, id) => ({ id, key: Math.floor(random() * 10_000) }));
    for (const item of items) queue.push(item, item.key);
    expect(queue.remove((item) => item.id % 3 === 0)).toBe(167);
    expect(queue.size).toBe(333);
    expect(queue.remove(() => false)).toBe(0);
    expect(queue.size).toBe(333);
    const kept = items.filter((item) => item.id % 3 !== 0);
    const popped = drain(queue);
    expect(popped.some((item) => item.id % 3 === 0)).toBe(false);
    expect(popped.map((i) => i.key)).toEqual(kept.map((i) => i.key).sort((a, b) => b - a));
  });

  it('rekeys every item and pops in the new order', () => {
    const queue = new PriorityQueue<Item>();
    const items = Array.from({ length: 200 }, (_, id) => ({ id, key: id }));
    for (const item of items) queue.push(item, item.key);
    expect(queue.peek()!.id).toBe(199);
    // Reverse the order: the lowest id now has the highest key.
    queue.rekey((item) => -item.id);
    expect(queue.size).toBe(200);
    expect(drain(queue).map((i) => i.id)).toEqual(items.map((i) => i.id));
  });

  it('rekeys with random keys and still pops in key order', () => {
    const random = seededRandom(3);
    const queue = new PriorityQueue<{ id: number }>();
    const newKey = new Map<number, number>();
    for (let id = 0; id < 300; id++) {
      queue.push({ id }, random());
      newKey.set(id, random());
    }
    queue.rekey((item) => newKey.get(item.id)!);
    const keys = drain(queue).map((item) => newKey.get(item.id)!);
    expect(keys).toEqual([...newKey.values()].sort((a, b) => b - a));
  });

  it('lists every queued item', () => {
    const queue = new PriorityQueue<string>();
    queue.push('a', 1);
    queue.push('b', 3);
    queue.push('c', 2);
    expect(queue.items().sort()).toEqual(['a', 'b', 'c']);
    expect(queue.peek()).toBe('b');
  });

  it('lists items best first without popping them', () => {
    const queue = new PriorityQueue<string>();
    for (const [item, key] of [
      ['a', 1],
      ['b', 5],
      ['c', 3],
      ['d', 4],
      ['e', 2],
    ] as const)
      queue.push(item, key);
    expect(queue.ordered()).toEqual(['b', 'd', 'c', 'e', 'a']);
    expect(queue.size).toBe(5);
    expect(drain(queue)).toEqual(['b', 'd', 'c', 'e', 'a']);
  });
});
