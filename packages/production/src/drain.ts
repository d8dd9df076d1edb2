import { observeInbox, type PullChannel } from '@herald/transport';

/** How long an inbox must have been quiet before a draining dispatcher or executor counts as idle. */
export const QUIET_MS = 1000;

/** An inbox that remembers when its last message arrived: a draining process waits for quiet. */
export interface WatchedInbox {
  readonly inbox: PullChannel;
  /** Milliseconds since the last message (or since the watch began). */
  idleMs(): number;
  /** Messages received so far. */
  readonly received: number;
}

export function watchInbox(inbox: PullChannel): WatchedInbox {
  let last = Date.now();
  let received = 0;
  const watched = observeInbox(inbox, () => {
    last = Date.now();
    received++;
  });
  return {
    inbox: watched,
    idleMs: () => Date.now() - last,
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
