import { observeInbox, type PullChannel } from '@herald/transport';

/** How long an inbox must have been quiet before a draining dispatcher or executor counts as idle. */
export const QUIET_MS = 1000;

/**
 * An inbox that remembers when its last piece of work arrived: a draining
 * process waits for quiet. A host.load report is not work: executors send
 * one every load.reportIntervalMs, so counting them would keep a
 * dispatcher's inbox from ever being quiet, and its drain would always wait
 * for management.drainTimeoutMs.
 */
export interface WatchedInbox {
  readonly inbox: PullChannel;
  /** Milliseconds since the last message other than host.load (or since the watch began). */
  idleMs(): number;
  /** Messages received so far. */
  readonly received: number;
}

/** `now`: the clock idleness is measured on (tests pass their own). */
export function watchInbox(inbox: PullChannel, now: () => number = Date.now): WatchedInbox {
  let last = now();
  let received = 0;
  const watched = observeInbox(inbox, (message) => {
    if (message.kind !== 'host.load') last = now();
    received++;
  });
  return {
    inbox: watched,
    idleMs: () => now() - last,
    get received() {
      return received;
    },
  };
}

/** Checks `done` every 100 ms until it holds or `timeoutMs` passed; says which. */
export async function waitUntil(done: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await done()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
