import { loadRecipientList, type ListRepository } from '@herald/audience';
import { radixSortUint32, uniqueSorted } from '@herald/core/uins';
import { systemClock, type Clock } from '@herald/core/ports';
import type { FilterReason } from '@herald/core/task';
import type { HeraldConfig } from '@herald/core/config';
import { buildFilterChain, type ChainSources } from './filters/chain';
import { runFilterChain } from './filters/filter';

/** A task that is not created yet, as a dry run describes it. */
export interface PreviewRequest {
  accountId: string;
  listId: string;
  contentCrc: number;
  /** The task's targeting query, if it would carry one. */
  targeting?: string;
  /** When it would start, epoch ms: frequency is judged then, as the real run is. */
  sendAt: number;
}

/** What the chain would keep and remove. */
export interface RecipientPreview {
  /** The list's recipients (duplicates included). */
  listed: number;
  kept: number;
  removed: Partial<Record<FilterReason, number>>;
  /** Present when the list was larger than PREVIEW_EXACT_MAX: the distinct recipients filtered, the counts after dedupe scaled from them. */
  sampled?: number;
}

/**
 * Lists up to this size are filtered whole, as the dispatcher would (about a
 * second of one core at the upper end); larger ones by a sample of this many.
 */
export const PREVIEW_EXACT_MAX = 1 << 22;

export interface PreviewDeps {
  config: HeraldConfig;
  lists: ListRepository;
  /** The same sources the dispatchers filter with (filterChainSources). */
  sources: ChainSources;
  clock?: Clock;
  /** Lists larger than this are sampled. Default PREVIEW_EXACT_MAX; tests set a small one. */
  exactMax?: number;
}

/**
 * The task's real filter chain over its list, without a task: what
 * POST /api/v1/tasks?dryRun=true reports. Every link only reads (blacklists,
 * earlier audiences, followers, attributes, frequency counts): nothing is
 * recorded, written or sent. Two links read the task itself in a real run;
 * here they get the request's values: the targeting query, and no task id
 * to leave out of the no-resend ledger (0, which no task has).
 *
 * On one thread, in the calling process: a list larger than
 * PREVIEW_EXACT_MAX is sorted and deduplicated whole (its duplicates are
 * counted exactly: a sample would see few of them), and the links after
 * dedupe, which read stores, run over an evenly spaced sample of that many
 * distinct recipients with their counts scaled up (`sampled` says so). The
 * sort is in place, over the list already in memory, plus one scratch array.
 */
export function createRecipientPreview(deps: PreviewDeps): (request: PreviewRequest) => Promise<RecipientPreview> {
  const baseClock = deps.clock ?? systemClock;
  const exactMax = deps.exactMax ?? PREVIEW_EXACT_MAX;
  return async (request) => {
    const uins = await loadRecipientList(deps.lists.pathOf(request.listId), { uinLimit: deps.config.uinLimit });
    const listed = uins.length;
    const chain = buildFilterChain(previewSources(deps.sources, request, baseClock));
    const context = { taskId: 0, accountId: request.accountId, contentCrc: request.contentCrc };
    if (listed <= exactMax) {
      const { kept, removed } = await runFilterChain(radixSortUint32(uins), chain, context);
      return { listed, kept: kept.length, removed };
    }
    const distinct = uniqueSorted(radixSortUint32(uins));
    const sample = evenSample(distinct, exactMax);
    // The sample is sorted and distinct already: the chain's dedupe link counts 0 there, and the exact count replaces it.
    const { removed } = await runFilterChain(sample, chain, context);
    const scaled = scaleCounts(distinct.length, sample.length, removed);
    const duplicate = listed - distinct.length;
    return { listed, kept: scaled.kept, removed: { ...scaled.removed, duplicate }, sampled: sample.length };
  };
}

/** The sources with what a real run reads from its task given by the request instead. */
function previewSources(sources: ChainSources, request: PreviewRequest, clock: Clock): ChainSources {
  // The real run is judged when the scheduler admits the task, at its send time or just after.
  const atSendTime: Clock = { now: () => Math.max(clock.now(), request.sendAt) };
  return {
    ...sources,
    ...(sources.targeting === undefined
      ? {}
      : { targeting: { ...sources.targeting, queryOf: async () => request.targeting } }),
    ...(sources.frequency === undefined ? {} : { frequency: { ...sources.frequency, clock: atSendTime } }),
  };
}

function evenSample(uins: Uint32Array, size: number): Uint32Array {
  const sample = new Uint32Array(size);
  const step = uins.length / size;
  for (let i = 0; i < size; i++) sample[i] = uins[Math.floor(i * step)]!;
  return sample;
}

/** Counts over a sample scaled to the `whole` it was taken from; kept is what the scaled removals leave, so the parts add up. */
function scaleCounts(
  whole: number,
  sampled: number,
  removed: Partial<Record<FilterReason, number>>,
): { kept: number; removed: Partial<Record<FilterReason, number>> } {
  const scaled: Partial<Record<FilterReason, number>> = {};
  let removedTotal = 0;
  for (const [reason, n] of Object.entries(removed) as [FilterReason, number][]) {
    scaled[reason] = Math.round((n * whole) / sampled);
    removedTotal += scaled[reason];
  }
  return { kept: Math.max(0, whole - removedTotal), removed: scaled };
}
