/**
 * A targeting query as a membership check: which uins of a batch match it
 * (docs/audience-sources.md, "Targeting"). Where `targetingSource` walks the
 * whole index to list an audience, this answers for a given sorted batch,
 * which is what a filter chain's targeting condition needs: it reads only
 * the chunks the batch falls in (a window of up to 64 of them a call to the
 * index) and evaluates the query there, chunk by chunk.
 */
import {
  activeDaysOf,
  chunkHas,
  chunkOf,
  decodeChunk,
  evaluatePlanChunk,
  parseTargetingQuery,
  planKeys,
  planTargetingQuery,
  UNIVERSE_KEY,
  type QueryNode,
} from '@herald/core/targeting';
import { checkAscendingBatch, systemClock, type AttributeIndex, type Clock } from '@herald/core/ports';

export interface TargetingFilter {
  readonly query: string;
  /** The uins of `uins` (strictly ascending) whose attributes match, ascending. */
  filter(uins: Uint32Array): Promise<Uint32Array>;
}

const WINDOW_CHUNKS = 64;

function usesActiveSince(node: QueryNode): boolean {
  if (node.kind === 'active-since') return true;
  if (node.kind === 'value') return false;
  if (node.kind === 'not') return usesActiveSince(node.child);
  return node.children.some(usesActiveSince);
}

/**
 * Parses `query` at once (a malformed one throws QueryError here) and
 * answers its filter over `index`.
 *
 * @example
 *   const vip = targetingFilter(index, 'tag:vip AND active-since:30d');
 *   const kept = await vip.filter(sortedBatch);
 */
export function targetingFilter(
  index: AttributeIndex,
  query: string,
  options: { clock?: Clock } = {},
): TargetingFilter {
  const tree = parseTargetingQuery(query);
  const clock = options.clock ?? systemClock;
  return {
    query,
    async filter(uins) {
      const batch = checkAscendingBatch(uins);
      if (batch.length === 0) return new Uint32Array(0);
      const activeDays = usesActiveSince(tree) ? activeDaysOf(await index.keysWithPrefix('active=')) : [];
      const plan = planTargetingQuery(tree, { now: clock.now(), activeDays });
      const keys = planKeys(plan);
      const kept = new Uint32Array(batch.length);
      let n = 0;
      let at = 0;
      while (at < batch.length) {
        // A window: the next WINDOW_CHUNKS distinct chunks of the batch.
        const firstChunk = chunkOf(batch[at]!);
        let end = at;
        let distinct = 0;
        let lastChunk = -1;
        while (end < batch.length) {
          const chunk = chunkOf(batch[end]!);
          if (chunk !== lastChunk) {
            if (distinct === WINDOW_CHUNKS) break;
            distinct++;
            lastChunk = chunk;
          }
          end++;
        }
        const byChunk = new Map<number, Map<string, Uint32Array>>();
        for (const row of await index.readChunks(keys, firstChunk, lastChunk + 1)) {
          let byKey = byChunk.get(row.chunk);
          if (byKey === undefined) byChunk.set(row.chunk, (byKey = new Map<string, Uint32Array>()));
          byKey.set(row.key, decodeChunk(row.bytes));
        }
        let i = at;
        while (i < end) {
          const chunk = chunkOf(batch[i]!);
          let runEnd = i;
          while (runEnd < end && chunkOf(batch[runEnd]!) === chunk) runEnd++;
          const byKey = byChunk.get(chunk);
          const universe = byKey?.get(UNIVERSE_KEY);
          if (byKey !== undefined && universe !== undefined) {
            const words = evaluatePlanChunk(plan, (key) => byKey.get(key), universe);
            for (let j = i; j < runEnd; j++) if (chunkHas(words, batch[j]!)) kept[n++] = batch[j]!;
          }
          i = runEnd;
        }
        at = end;
      }
      return kept.slice(0, n);
    },
  };
}
