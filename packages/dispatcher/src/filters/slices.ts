/**
 * Keeps, slice by slice, what `keep` answers for each slice of a sorted list,
 * compacting in place: what is kept of a slice is written at or before where
 * the slice starts. For links whose store takes bounded batches (the
 * frequency counter's reads, a FollowerStore's or a targeting index's
 * membership checks, at most MAX_SOURCE_BATCH uins each).
 */
export async function keepInSlices(
  uins: Uint32Array,
  slice: number,
  keep: (part: Uint32Array) => Promise<Uint32Array>,
): Promise<Uint32Array> {
  let kept = 0;
  for (let start = 0; start < uins.length; start += slice) {
    const within = await keep(uins.subarray(start, start + slice));
    uins.set(within, kept);
    kept += within.length;
  }
  return uins.subarray(0, kept);
}
