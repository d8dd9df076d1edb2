/**
 * A binary max-heap keyed by a number. The scheduler recomputes scores when it
 * pops (aging changes them), so the heap only needs push/pop/remove.
 */
export class PriorityQueue<T> {
  private readonly heap: { key: number; item: T }[] = [];

  get size(): number {
    return this.heap.length;
  }

  push(item: T, key: number): void {
    this.heap.push({ key, item });
    this.up(this.heap.length - 1);
  }

  peek(): T | undefined {
    return this.heap[0]?.item;
  }

  pop(): T | undefined {
    const top = this.heap[0];
    if (top === undefined) return undefined;
    const last = this.heap.pop()!;
    if (this.heap.length > 0) {
      this.heap[0] = last;
      this.down(0);
    }
    return top.item;
  }

  /** Removes every item the predicate matches; O(n). */
  remove(match: (item: T) => boolean): number {
    const kept = this.heap.filter((e) => !match(e.item));
    const removed = this.heap.length - kept.length;
    if (removed > 0) this.rebuild(kept.map((e) => [e.item, e.key] as const));
    return removed;
  }

  /** Re-keys every item (aging) and restores heap order. */
  rekey(keyOf: (item: T) => number): void {
    this.rebuild(this.heap.map((e) => [e.item, keyOf(e.item)] as const));
  }

  items(): T[] {
    return this.heap.map((e) => e.item);
  }

  /** Every item, best first (what popping them all would give, without popping); O(n log n). */
  ordered(): T[] {
    return [...this.heap].sort((a, b) => b.key - a.key).map((e) => e.item);
  }

  private rebuild(entries: readonly (readonly [T, number])[]): void {
    this.heap.length = 0;
    for (const [item, key] of entries) this.push(item, key);
  }

  private up(i: number): void {
    const h = this.heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (h[parent]!.key >= h[i]!.key) return;
      [h[parent], h[i]] = [h[i]!, h[parent]!];
      i = parent;
    }
  }

  private down(i: number): void {
    const h = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let best = i;
      if (l < h.length && h[l]!.key > h[best]!.key) best = l;
      if (r < h.length && h[r]!.key > h[best]!.key) best = r;
      if (best === i) return;
      [h[best], h[i]] = [h[i]!, h[best]!];
      i = best;
    }
  }
}
