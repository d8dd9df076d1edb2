import type { PushLinkEvent } from '@herald/transport';

/**
 * How many reconnects after a disconnect must be scheduled, with no
 * connection made in between, before the peer counts as gone. zeromq
 * schedules the first at the disconnect itself, and one more after every
 * attempt that failed: the second proves one attempt was refused (nothing
 * listens at the peer's address any more), about one reconnect interval
 * (100 ms) after the disconnect.
 */
export const RETRIES_TO_GONE = 2;

/**
 * Watches one PUSH link to a peer for the sign that its process died: the
 * connection closed (its kernel closes every socket of a killed process) and
 * reconnecting is refused. Calls `gone` once per such episode; a new
 * connection (the peer back, or never gone) starts over.
 *
 * A peer that is only cut off (a network partition, a paused process, a
 * link that drops packets) closes nothing and refuses nothing: it is left to
 * APTA's dead interval. So is a whole host lost without a word (no reset
 * reaches us); the watch only makes the common case, a process that died on
 * a host that is still up, fast.
 */
export function goneWatch(gone: () => void): (event: PushLinkEvent) => void {
  let retries: number | undefined; // counting since a disconnect; undefined while connected
  return (event) => {
    switch (event.type) {
      case 'connected':
        retries = undefined;
        break;
      case 'disconnected':
        retries = 0;
        break;
      case 'retrying':
        if (retries === undefined) break; // retries before the first connection: the peer never came up
        retries += 1;
        if (retries === RETRIES_TO_GONE) gone();
        break;
    }
  };
}
