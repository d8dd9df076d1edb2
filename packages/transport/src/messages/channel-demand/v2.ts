/**
 * channel.demand, version 2: what this build sends. Version 1's content
 * (v1.ts) and the rate the executor sends at through the channel, so that
 * one whose part of the budget grows takes its part of what the executors
 * sent together, not its old rate scaled (docs/delivery.md, "One budget per
 * channel").
 *
 *   offset  size  field
 *   0       1     kind        u8 = 14
 *   1       1     version     u8 = 2
 *   2       2+n   executorId  str
 *   ..      2+m   channel     str: the channel's name (the delivery kind, e.g. "webhook")
 *   ..      4     demand      u32 LE, recipients
 *   ..      4     rate        u32 LE, recipients per second (whole)
 *                 (end: 14 + n + m bytes)
 */
import { FrameWriter, malformed, openFrame } from '../codec';
import type { ChannelDemand } from '../types';

/** The version this module writes and reads, byte 1 of its frames. */
export const VERSION = 2;

export function encode(msg: ChannelDemand): Buffer {
  if (msg.rate === undefined) throw malformed('channel.demand: cannot encode v2 without a rate', { field: 'rate' });
  return new FrameWriter('channel.demand', VERSION)
    .str(msg.executorId, 'executorId')
    .str(msg.channel, 'channel')
    .u32(msg.demand, 'demand')
    .u32(msg.rate, 'rate')
    .finish();
}

export function decode(frame: Buffer): ChannelDemand {
  const r = openFrame(frame, 'channel.demand', VERSION);
  const executorId = r.str('executorId');
  const channel = r.str('channel');
  const demand = r.u32('demand');
  const rate = r.u32('rate');
  r.end();
  return { kind: 'channel.demand', executorId, channel, demand, rate };
}
