/**
 * channel.throttled, version 1. executor -> every other executor (on their
 * channel endpoints, `topology.executors[].channelEndpoint`): this executor's
 * delivery channel throttled a send (429 + Retry-After, or a throttle
 * without one): the receiver hears it at once and holds its own sending
 * through that channel for `holdMs` from the moment it reads the message,
 * cutting its rate as if it had been throttled itself (docs/delivery.md,
 * "One budget per channel"). The hold is relative, not an instant, so the
 * two hosts' clocks need not agree.
 *
 *   offset  size  field
 *   0       1     kind        u8 = 13
 *   1       1     version     u8 = 1
 *   2       2+n   executorId  str: the executor that was throttled
 *   ..      2+m   channel     str: the channel's name (the delivery kind, e.g. "webhook")
 *   ..      4     holdMs      u32 LE: how long sending holds (the Retry-After, or throttleDelayMs)
 *   ..      2+k   detail      str: the channel's reason, for logs and the task's hold
 *                 (end: 12 + n + m + k bytes)
 */
import { FrameWriter, openFrame } from '../codec';
import type { ChannelThrottled } from '../types';

/** The version this module writes and reads, byte 1 of its frames. */
export const VERSION = 1;

export function encode(msg: ChannelThrottled): Buffer {
  return new FrameWriter('channel.throttled', VERSION)
    .str(msg.executorId, 'executorId')
    .str(msg.channel, 'channel')
    .u32(msg.holdMs, 'holdMs')
    .str(msg.detail, 'detail')
    .finish();
}

export function decode(frame: Buffer): ChannelThrottled {
  const r = openFrame(frame, 'channel.throttled', VERSION);
  const executorId = r.str('executorId');
  const channel = r.str('channel');
  const holdMs = r.u32('holdMs');
  const detail = r.str('detail');
  r.end();
  return { kind: 'channel.throttled', executorId, channel, holdMs, detail };
}
