/**
 * channel.demand, version 1. executor -> every other executor (on their
 * channel endpoints), every load.reportIntervalMs: how much this executor
 * wants to send through a channel, so the executors split the channel's
 * budget by demand instead of evenly (docs/delivery.md, "One budget per
 * channel"). `demand` is the most recipients its batches had waiting on or
 * going through the channel at once during the last interval (0: no work
 * for it).
 *
 *   offset  size  field
 *   0       1     kind        u8 = 14
 *   1       1     version     u8 = 1
 *   2       2+n   executorId  str
 *   ..      2+m   channel     str: the channel's name (the delivery kind, e.g. "webhook")
 *   ..      4     demand      u32 LE, recipients
 *                 (end: 10 + n + m bytes)
 */
import { FrameWriter, openFrame } from '../codec';
import type { ChannelDemand } from '../types';

/** The version this module writes and reads, byte 1 of its frames. */
export const VERSION = 1;

export function encode(msg: ChannelDemand): Buffer {
  return new FrameWriter('channel.demand', VERSION)
    .str(msg.executorId, 'executorId')
    .str(msg.channel, 'channel')
    .u32(msg.demand, 'demand')
    .finish();
}

export function decode(frame: Buffer): ChannelDemand {
  const r = openFrame(frame, 'channel.demand', VERSION);
  const executorId = r.str('executorId');
  const channel = r.str('channel');
  const demand = r.u32('demand');
  r.end();
  return { kind: 'channel.demand', executorId, channel, demand };
}
