/**
 * Reads an inbox ahead of its consumer: while the consumer handles one run
 * of messages, the next ones are read into a buffer of at most `max`, and the
 * consumer's next step takes all of them at once. A consumer faster than the
 * inbox gets runs of one, as if it read the inbox itself; one slower gets what
 * queued meanwhile, which it may fold (progress-runs.ts). Past `max` nothing
 * more is read, so the transport's own high-water mark pushes back on the
 * senders as before.
 */
export async function* runsOf<T>(messages: AsyncIterable<T>, max: number): AsyncGenerator<T[]> {
  if (!Number.isInteger(max) || max < 1) throw new RangeError(`max must be an integer >= 1, not ${max}`);
  const iterator = messages[Symbol.asyncIterator]();
  let buffer: T[] = [];
  let ended = false;
  let failure: { error: unknown } | undefined;
  let arrived: (() => void) | undefined;
  let taken: (() => void) | undefined;
  const reading = (async () => {
    try {
      for (;;) {
        if (buffer.length >= max) await new Promise<void>((resolve) => (taken = resolve));
        const next = await iterator.next();
        if (next.done === true) return;
        buffer.push(next.value);
        arrived?.();
      }
    } catch (error) {
      failure = { error };
    } finally {
      ended = true;
      arrived?.();
    }
  })();
  try {
    for (;;) {
      if (buffer.length === 0) {
        if (ended) break;
        await new Promise<void>((resolve) => (arrived = resolve));
        arrived = undefined;
        continue;
      }
      const run = buffer;
      buffer = [];
      taken?.();
      taken = undefined;
      yield run;
    }
    if (failure !== undefined) throw failure.error;
  } finally {
    // The consumer stopped early: stop reading too (a read under way ends when the inbox closes).
    if (!ended) void Promise.resolve(iterator.return?.()).catch(() => undefined);
    taken?.();
    void reading;
  }
}
