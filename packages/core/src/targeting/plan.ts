/**
 * From a parsed targeting query to a plan over bitset keys, and the plan's
 * evaluation one chunk at a time (docs/audience-sources.md, "Targeting").
 *
 * A plan's leaves are unions of bitsets: `region:cn-gd` is the one bitset
 * `region=cn-gd`; `active-since:D` is every `active=<day>` bucket from D on
 * that the index holds (the caller lists them). NOT is relative to the
 * universe (`*`, every user the index holds), so `NOT tag:vip` is the users
 * known to the index without the tag, never the whole uin space.
 *
 * Evaluation works on one 2^16-uin chunk at a time: memory is one 8 KiB
 * word array per plan node, whatever the audience size, and chunks come out
 * in ascending order, so the matches stream out sorted.
 */
import { activeDayOfKey, UNIVERSE_KEY, utcDay } from './attributes';
import { CHUNK_WORDS, emptyChunk } from './bitset-chunk';
import type { QueryNode } from './query';

export type PlanNode =
  { op: 'union'; keys: string[] } | { op: 'and' | 'or'; children: PlanNode[] } | { op: 'not'; child: PlanNode };

export interface PlanContext {
  /** Now, epoch ms: what `active-since:<n>d` counts back from. */
  now: number;
  /** The day numbers of the `active=<day>` buckets the index holds. */
  activeDays: readonly number[];
}

/** Resolves a query into a plan over the bitset keys the index holds. */
export function planTargetingQuery(query: QueryNode, context: PlanContext): PlanNode {
  switch (query.kind) {
    case 'value':
      return { op: 'union', keys: [`${query.attribute}=${query.value}`] };
    case 'active-since': {
      const from = 'day' in query.since ? query.since.day : utcDay(context.now) - query.since.daysBack;
      const days = context.activeDays.filter((day) => day >= from).sort((a, b) => a - b);
      return { op: 'union', keys: days.map((day) => `active=${day}`) };
    }
    case 'and':
    case 'or':
      return { op: query.kind, children: query.children.map((child) => planTargetingQuery(child, context)) };
    case 'not':
      return { op: 'not', child: planTargetingQuery(query.child, context) };
  }
}

/** Every bitset key the plan reads, the universe first, each once. */
export function planKeys(plan: PlanNode): string[] {
  const keys = new Set<string>([UNIVERSE_KEY]);
  const walk = (node: PlanNode): void => {
    if (node.op === 'union') for (const key of node.keys) keys.add(key);
    else if (node.op === 'not') walk(node.child);
    else for (const child of node.children) walk(child);
  };
  walk(plan);
  return [...keys];
}

/** The day numbers among `keys` that are `active=<day>` buckets. */
export function activeDaysOf(keys: Iterable<string>): number[] {
  const days: number[] = [];
  for (const key of keys) {
    const day = activeDayOfKey(key);
    if (day !== undefined) days.push(day);
  }
  return days;
}

/**
 * The words of the users of one chunk the plan selects. `chunkOf(key)` gives
 * a bitset's words for this chunk, undefined when it holds nobody there;
 * `universe` is the universe's words. The result is always within the
 * universe (a user the index does not hold never matches).
 */
export function evaluatePlanChunk(
  plan: PlanNode,
  chunkOf: (key: string) => Uint32Array | undefined,
  universe: Uint32Array,
): Uint32Array {
  const result = evaluate(plan, chunkOf, universe);
  for (let i = 0; i < CHUNK_WORDS; i++) result[i]! &= universe[i]!;
  return result;
}

function evaluate(
  node: PlanNode,
  chunkOf: (key: string) => Uint32Array | undefined,
  universe: Uint32Array,
): Uint32Array {
  const out = emptyChunk();
  switch (node.op) {
    case 'union':
      for (const key of node.keys) {
        const words = chunkOf(key);
        if (words !== undefined) for (let i = 0; i < CHUNK_WORDS; i++) out[i]! |= words[i]!;
      }
      return out;
    case 'not': {
      const inner = evaluate(node.child, chunkOf, universe);
      for (let i = 0; i < CHUNK_WORDS; i++) out[i] = universe[i]! & ~inner[i]!;
      return out;
    }
    case 'and': {
      out.set(evaluate(node.children[0]!, chunkOf, universe));
      for (let c = 1; c < node.children.length; c++) {
        const words = evaluate(node.children[c]!, chunkOf, universe);
        for (let i = 0; i < CHUNK_WORDS; i++) out[i]! &= words[i]!;
      }
      return out;
    }
    case 'or':
      for (const child of node.children) {
        const words = evaluate(child, chunkOf, universe);
        for (let i = 0; i < CHUNK_WORDS; i++) out[i]! |= words[i]!;
      }
      return out;
  }
}
