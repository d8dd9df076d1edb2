/**
 * What a tier opened, in order, so that a start that fails half way closes
 * everything it had opened (newest first) before the error goes on, and a
 * stop closes it all the same way.
 */
export class Resources {
  private readonly closers: { name: string; close: () => Promise<void> | void }[] = [];

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
      const { close } = this.closers.pop()!;
      try {
        await close();
      } catch {
        // Closing is best effort: the first error is the one that matters.
      }
    }
  }
}
