import type { Logger } from '@herald/core/ports';

/**
 * Something a process does once after it started and before it says it is
 * ready, so that the first tasks do not pay for it: open connections, load a
 * topic's metadata (docs/operations.md, "Readiness").
 */
export interface WarmUpStep {
  /** Shown in the management status while the step has not succeeded ("kafka topics"). */
  readonly name: string;
  run(): Promise<void>;
}

/** What GET /status says about readiness. */
export interface ReadinessStatus {
  /** True once every warm-up step succeeded. */
  ready: boolean;
  /** The steps not done yet, by name. */
  waitingFor: string[];
  /** The last error of each step that failed and is being retried, by name. */
  warmUpErrors?: Record<string, string>;
}

export interface ReadinessOptions {
  logger: Logger;
  /** Wait between a failed step and its next try. @defaultValue 1000 */
  retryMs?: number;
}

/**
 * A process's readiness: not ready until `start()` and until each step
 * added has succeeded once. A failed step keeps the process running and
 * not ready: its error shows in the status and it is tried again every
 * `retryMs` until it succeeds or `stop()`. Readiness is only about the start:
 * once ready, a process stays ready (an outage later shows in its errors and
 * metrics, and the adapters ride it out).
 */
export class Readiness {
  private readonly steps: WarmUpStep[] = [];
  private readonly waiting = new Set<string>();
  private readonly errors = new Map<string, string>();
  private started = false;
  private stopped = false;
  /** Ends a wait between tries at once (stop()). */
  private readonly wakers = new Set<() => void>();

  constructor(private readonly options: ReadinessOptions) {}

  /** Adds a step; one added after start() (an adapter opened late) runs at once, and the process is not ready until it is done. */
  add(step: WarmUpStep): void {
    this.steps.push(step);
    this.waiting.add(step.name);
    if (this.started) void this.untilDone(step);
  }

  /** Runs every step at once; resolves when all succeeded (never rejects; resolves at stop() too). */
  start(): Promise<void> {
    this.started = true;
    return Promise.all(this.steps.map((step) => this.untilDone(step))).then(() => {
      if (!this.stopped && this.steps.length > 0)
        this.options.logger.info('warmed up: ready', { steps: this.steps.map((s) => s.name) });
    });
  }

  status(): ReadinessStatus {
    const ready = this.started && this.waiting.size === 0;
    return {
      ready,
      waitingFor: this.started ? [...this.waiting] : ['start', ...this.waiting],
      ...(this.errors.size > 0 ? { warmUpErrors: Object.fromEntries(this.errors) } : {}),
    };
  }

  /** Stops retrying: a process that stops before it is ready does not keep trying to warm up. */
  stop(): void {
    this.stopped = true;
    for (const wake of [...this.wakers]) wake();
  }

  private async untilDone(step: WarmUpStep): Promise<void> {
    const retryMs = this.options.retryMs ?? 1000;
    while (!this.stopped) {
      try {
        await step.run();
        this.waiting.delete(step.name);
        this.errors.delete(step.name);
        return;
      } catch (error) {
        const message = String((error as Error)?.message ?? error);
        this.errors.set(step.name, message);
        this.options.logger.warn('warm-up step failed; not ready, trying again', {
          step: step.name,
          error: message,
          retryMs,
        });
        await new Promise<void>((resolve) => {
          const wake = () => {
            clearTimeout(timer);
            this.wakers.delete(wake);
            resolve();
          };
          const timer = setTimeout(wake, retryMs);
          this.wakers.add(wake);
        });
      }
    }
  }
}
