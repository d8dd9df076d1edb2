import type { PullChannel } from './channels';
import type { Message } from './messages/types';

/**
 * The same inbox, with `seen` called on each message as its reader takes it
 * (before the reader gets it): for watching what an inbox carries (quiet
 * time, units in flight) without touching the code that reads it.
 */
export function observeInbox(inbox: PullChannel, seen: (message: Message) => void): PullChannel {
  return {
    get endpoint() {
      return inbox.endpoint;
    },
    get malformed() {
      return inbox.malformed;
    },
    close: () => inbox.close(),
    async *messages() {
      for await (const message of inbox.messages()) {
        seen(message);
        yield message;
      }
    },
  };
}
