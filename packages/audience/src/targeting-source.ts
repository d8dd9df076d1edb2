/**
 * The `targeting` audience source: the users whose attributes match a query
 * (core's query language), evaluated over an AttributeIndex's per-value
 * bitsets one 2^16-uin chunk at a time (docs/audience-sources.md,
 * "Targeting"). Memory: one window of stored chunks plus one word array per
 * plan node, whatever the audience; uins come out ascending because chunks
 * are walked in order.
 */
import {
  activeDaysOf,
  CHUNK_UINS,
  chunkMembers,
  decodeChunk,
  evaluatePlanChunk,
  parseTargetingQuery,
  planKeys,
  planTargetingQuery,
  UNIVERSE_KEY,
  type QueryNode,
} from '@herald/core/targeting';
import {
  checkSourceBatchSize,
  systemClock,
  type AttributeIndex,
  type AudienceBatch,
  type AudienceReadOptions,
  type AudienceSource,
  type Clock,
  type StoredChunk,
} from '@herald/core/ports';

export interface TargetingSourceOptions {
  /** What `active-since:<n>d` counts back from. @defaultValue systemClock */
  clock?: Clock;
  /** Uins per batch, 1..2^20. @defaultValue 65536 */
  batchSize?: number;
  /** Chunks read from the index per call (each up to 8 KiB a key). @defaultValue 64 */
  windowChunks?: number;
}

function usesActiveSince(node: QueryNode): boolean {
  switch (node.kind) {
    case 'active-since':
      return true;
    case 'value':
      return false;
    case 'not':
      return usesActiveSince(node.child);
    default:
      return node.children.some(usesActiveSince);
  }
}

/**
 * A source of the users `query` matches in `index`. The query is parsed at
 * once: a malformed one throws QueryError here, before any read.
 *
 * @example
 *   const source = targetingSource(index, 'region:cn-gd AND NOT tag:churned AND active-since:30d');
 *   const { meta } = await importFromSource(lists, source, { accountId: 'acme', uinLimit: 2 ** 32 });
 */
export function targetingSource(
  index: AttributeIndex,
  query: string,
  options: TargetingSourceOptions = {},
): AudienceSource {
  const tree = parseTargetingQuery(query);
  const batchSize = checkSourceBatchSize(options.batchSize, 65_536);
  const windowChunks = checkSourceBatchSize(options.windowChunks, 64, 'windowChunks');
  const clock = options.clock ?? systemClock;
  return {
    kind: 'targeting',
    description: { query },
    read: (readOptions) => readMatches(index, tree, { batchSize, windowChunks, clock }, readOptions),
  };
}

async function* readMatches(
  index: AttributeIndex,
  tree: QueryNode,
  settings: { batchSize: number; windowChunks: number; clock: Clock },
  { uinLimit, signal }: AudienceReadOptions,
): AsyncGenerator<AudienceBatch> {
  const activeDays = usesActiveSince(tree) ? activeDaysOf(await index.keysWithPrefix('active=')) : [];
  const plan = planTargetingQuery(tree, { now: settings.clock.now(), activeDays });
  const keys = planKeys(plan);
  const members = new Uint32Array(CHUNK_UINS);
  let pending = new Uint32Array(settings.batchSize);
  let filled = 0;
  let outOfRange = 0;
  let from = 0;
  for (;;) {
    signal?.throwIfAborted();
    const first = await index.nextChunk(from);
    if (first === undefined) break;
    const to = first + settings.windowChunks;
    const rows = await index.readChunks(keys, first, to);
    for (const [chunk, byKey] of groupByChunk(rows)) {
      const universe = byKey.get(UNIVERSE_KEY);
      if (universe === undefined) continue;
      const words = evaluatePlanChunk(plan, (key) => byKey.get(key), universe);
      const n = chunkMembers(words, chunk, members, 0);
      for (let i = 0; i < n; i++) {
        const uin = members[i]!;
        if (uin >= uinLimit) {
          outOfRange++;
          continue;
        }
        pending[filled++] = uin;
        if (filled === settings.batchSize) {
          yield outOfRange > 0 ? { uins: pending, bad: { out_of_range: outOfRange } } : { uins: pending };
          signal?.throwIfAborted();
          outOfRange = 0;
          pending = new Uint32Array(settings.batchSize);
          filled = 0;
        }
      }
    }
    from = to;
  }
  if (filled > 0 || outOfRange > 0)
    yield outOfRange > 0
      ? { uins: pending.slice(0, filled), bad: { out_of_range: outOfRange } }
      : { uins: pending.slice(0, filled) };
}

/** Stored chunks (ordered by chunk) decoded and grouped: chunk -> key -> words, in chunk order. */
function groupByChunk(rows: readonly StoredChunk[]): Map<number, Map<string, Uint32Array>> {
  const chunks = new Map<number, Map<string, Uint32Array>>();
  for (const row of [...rows].sort((a, b) => a.chunk - b.chunk)) {
    let byKey = chunks.get(row.chunk);
    if (byKey === undefined) chunks.set(row.chunk, (byKey = new Map<string, Uint32Array>()));
    byKey.set(row.key, decodeChunk(row.bytes));
  }
  return chunks;
}
