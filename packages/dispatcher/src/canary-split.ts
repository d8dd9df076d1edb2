import { canaryFraction, inCanarySample, type TaskRollout } from '@herald/core/rollout';
import type { ListSegment } from '@herald/core/dispatch';

/**
 * A canary task's filtered list (docs/rollouts.md, "Canary"): the sample
 * first, then the rest, each part ascending. The sample is every kept uin
 * whose salted point (a hash of uin and the task's seed) falls under the
 * canary's fraction, so a second run of the chain, a recovery or another
 * dispatcher picks the same sample. Putting the sample in the first positions
 * keeps what every other part relies on: a unit is a range of positions, a
 * checkpoint confirms everything before it, a delivery record covers a run of
 * positions. Only the whole list's order changes: it is two sorted runs.
 */
export function samplePositionsFirst(kept: Uint32Array, rollout: TaskRollout): { list: Uint32Array; sample: number } {
  const canary = rollout.canary!;
  const fraction = canaryFraction(canary.sample, kept.length);
  const sample = new Uint32Array(kept.length);
  const rest = new Uint32Array(kept.length);
  let s = 0;
  let r = 0;
  for (const uin of kept) {
    if (inCanarySample(uin, rollout.seed, fraction)) sample[s++] = uin;
    else rest[r++] = uin;
  }
  // A canary whose sample came out empty still sends one recipient first, so its hold judges something.
  const moved = s === 0 && kept.length > 0 ? 1 : 0;
  const list = new Uint32Array(kept.length);
  list.set(sample.subarray(0, s));
  list.set(rest.subarray(0, r), s);
  return { list, sample: s + moved };
}

/** The canary's two parts, for units none of which crosses from the sample into the rest: the scheduler runs the sample's alone first. */
export function sampleThenRest(count: number, sample: number): ListSegment[] {
  return [
    { start: 0, end: sample },
    { start: sample, end: count },
  ].filter((part) => part.end > part.start);
}
