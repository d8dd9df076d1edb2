import type { ChannelStatus } from '@herald/core/pacing';
import type { ChannelHold } from '@herald/core/task';

/** What an executor reads of its channel's hold (PacedDeliveryGateway). */
export interface ChannelHoldSource {
  hold(): ChannelHold | undefined;
  /** Calls the listener at each change of the hold; returns the unsubscribe. */
  watchHold(listener: (hold: ChannelHold | undefined) => void): () => void;
}

/** A throttle this process's channel took, as relayed to the other executors (`onThrottled`). */
export interface ChannelThrottle {
  /** How long sending holds from now: the Retry-After, or `throttleDelayMs` without one. */
  holdMs: number;
  detail: string;
}

/** A pacing status as a task report shows it: a 429's hold is `throttled`, any other is `unavailable`. */
export function holdOf(status: ChannelStatus): ChannelHold | undefined {
  if (status.held === undefined) return undefined;
  return {
    state: status.held.reason === 'throttled' ? 'throttled' : 'unavailable',
    reason: status.held.detail === '' ? status.held.reason : status.held.detail,
  };
}
