import { noopLogger, type Logger } from '@herald/core/ports';

/** How long one close may take before the stop names it in a warning (it goes on waiting). */
export const SLOW_CLOSE_MS = 10_000;

/**
 * What a tier opened, in order, so that a start that fails half way closes
 * everything it had opened (newest first) before the error goes on, and a
 * stop closes it all the same way. A close that takes longer than
 * `SLOW_CLOSE_MS` is named in a warning, so a stop that hangs says where.
 */
export class Resources {
  private readonly closers: { name: string; close: () => Promise<void> | void }[] = [];

  constructor(
    private readonly logger: Logger = noopLogger,
    private readonly slowCloseMs: number = SLOW_CLOSE_MS,
  ) {}

  add<T>(name: string, resource: T, close: (resource: T) => Promise<void> | void): T {
    this.closers.push({ name, close: () => close(resource) });
    return resource;
  }

  /** Runs `start`; on failure closes what was added so far and rethrows. */
  async starting<T>(start: () => Promise<T>): Promise<T> {
    try {
      return await start();
    } catch (error) {
      await this.closeAll();
      throw error;
    }
  }

  async closeAll(): Promise<void> {
    while (this.closers.length > 0) {
      const { name, close } = this.closers.pop()!;
      const startedAt = Date.now();
      const slow = setTimeout(
        () => this.logger.warn('stop: still closing', { resource: name, waitedMs: Date.now() - startedAt }),
        this.slowCloseMs,
      );
      try {
        await close();
      } catch {
        // Closing is best effort: the first error is the one that matters.
      } finally {
        clearTimeout(slow);
      }
    }
  }
}
