import type { PushLinkEvent } from '@herald/transport';
import { goneWatch } from './gone-watch';

const ENDPOINT = 'tcp://127.0.0.1:1';
/** Feeds `events` to a fresh watch; returns how many times it declared the peer gone. */
function run(events: PushLinkEvent['type'][]): number {
  let gone = 0;
  const watch = goneWatch(() => gone++);
  for (const type of events) watch({ type, endpoint: ENDPOINT });
  return gone;
}

describe('goneWatch', () => {
  it.each([
    ['connected only', ['connected'], 0],
    ['a disconnect alone (the reconnect zeromq schedules at once)', ['connected', 'disconnected', 'retrying'], 0],
    ['a disconnect, then a refused reconnect: gone', ['connected', 'disconnected', 'retrying', 'retrying'], 1],
    [
      'refused again and again: gone once',
      ['connected', 'disconnected', 'retrying', 'retrying', 'retrying', 'retrying'],
      1,
    ],
    [
      'a disconnect, then a new connection (restarted, or never gone)',
      ['connected', 'disconnected', 'retrying', 'connected', 'retrying'],
      0,
    ],
    [
      'gone, back, gone again: twice',
      ['connected', 'disconnected', 'retrying', 'retrying', 'connected', 'disconnected', 'retrying', 'retrying'],
      2,
    ],
    ['retries before any connection: a peer not up yet is not declared gone', ['retrying', 'retrying', 'retrying'], 0],
  ] as const)('%s', (_what, events, expected) => {
    expect(run([...events])).toBe(expected);
  });
});
