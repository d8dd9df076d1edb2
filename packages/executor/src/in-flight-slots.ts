/**
 * A bound on requests in flight: `acquire` takes a slot, waiting in arrival
 * order for one to be released, at most until `deadline` (epoch ms).
 */
export class InFlightSlots {
  private free: number;
  private readonly waiting: Array<(granted: boolean) => void> = [];

  constructor(size: number) {
    this.free = size;
  }

  /** True once a slot is held (release it); false when `deadline` passed first. */
  acquire(deadline: number): Promise<boolean> {
    if (this.free > 0) {
      this.free -= 1;
      return Promise.resolve(true);
    }
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(
        () => {
          const at = this.waiting.indexOf(grant);
          if (at >= 0) this.waiting.splice(at, 1);
          resolve(false);
        },
        Math.max(0, deadline - Date.now()),
      );
      const grant = (granted: boolean) => {
        clearTimeout(timer);
        resolve(granted);
      };
      this.waiting.push(grant);
    });
  }

  release(): void {
    const next = this.waiting.shift();
    if (next !== undefined) next(true);
    else this.free += 1;
  }
}
