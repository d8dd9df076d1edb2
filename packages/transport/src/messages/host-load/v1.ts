/**
 * host.load, version 1. executor -> dispatcher, every load.reportIntervalMs:
 * the load of the executor's host and its own free sender slots, which the
 * dispatcher plans units on (docs/scheduling.md "Load-aware dispatch").
 *
 *   offset  size  field
 *   0       1     kind                       u8 = 11
 *   1       1     version                    u8 = 1
 *   2       2+n   executorId                 str (u16 LE length n, then n bytes UTF-8)
 *   ..      8     sentAt                     u64 LE, ms since the epoch (reporter's clock)
 *   ..      4     cpuCores                   u32 LE
 *   ..      4     cpuBusyPermille            u32 LE, at most 1000
 *   ..      8     memTotalBytes              u64 LE
 *   ..      8     memAvailableBytes          u64 LE, at most memTotalBytes
 *   ..      8     nicCapacityBytesPerSecond  u64 LE
 *   ..      8     nicBytesPerSecond          u64 LE
 *   ..      4     senderSlots                u32 LE
 *   ..      4     senderSlotsFree            u32 LE, at most senderSlots
 *                 (end: 60 + n bytes)
 *
 * A frame breaking an "at most" is malformed on both sides: the planner
 * divides by these numbers and must never see a negative spare.
 */
import type { HostLoad } from '@herald/core/dispatch';
import { FrameWriter, malformed, openFrame } from '../codec';
import type { HostLoadMessage } from '../types';

/** The version this module writes and reads, byte 1 of its frames. */
export const VERSION = 1;

export function encode(msg: HostLoadMessage): Buffer {
  check(msg);
  const r = msg.report;
  return new FrameWriter('host.load', VERSION)
    .str(r.executorId, 'executorId')
    .u64(r.sentAt, 'sentAt')
    .u32(r.cpuCores, 'cpuCores')
    .u32(r.cpuBusyPermille, 'cpuBusyPermille')
    .u64(r.memTotalBytes, 'memTotalBytes')
    .u64(r.memAvailableBytes, 'memAvailableBytes')
    .u64(r.nicCapacityBytesPerSecond, 'nicCapacityBytesPerSecond')
    .u64(r.nicBytesPerSecond, 'nicBytesPerSecond')
    .u32(r.senderSlots, 'senderSlots')
    .u32(r.senderSlotsFree, 'senderSlotsFree')
    .finish();
}

export function decode(frame: Buffer): HostLoadMessage {
  const r = openFrame(frame, 'host.load', VERSION);
  const report: HostLoad = {
    executorId: r.str('executorId'),
    sentAt: r.u64('sentAt'),
    cpuCores: r.u32('cpuCores'),
    cpuBusyPermille: r.u32('cpuBusyPermille'),
    memTotalBytes: r.u64('memTotalBytes'),
    memAvailableBytes: r.u64('memAvailableBytes'),
    nicCapacityBytesPerSecond: r.u64('nicCapacityBytesPerSecond'),
    nicBytesPerSecond: r.u64('nicBytesPerSecond'),
    senderSlots: r.u32('senderSlots'),
    senderSlotsFree: r.u32('senderSlotsFree'),
  };
  r.end();
  const msg: HostLoadMessage = { kind: 'host.load', report };
  check(msg);
  return msg;
}

function check({ report: r }: HostLoadMessage): void {
  const bad = (field: string, problem: string) =>
    malformed(`host.load: ${field} ${problem}`, { kind: 'host.load', field });
  if (r.cpuBusyPermille > 1000) throw bad('cpuBusyPermille', `is ${r.cpuBusyPermille}, above 1000`);
  if (r.memAvailableBytes > r.memTotalBytes)
    throw bad('memAvailableBytes', `is ${r.memAvailableBytes}, above memTotalBytes ${r.memTotalBytes}`);
  if (r.senderSlotsFree > r.senderSlots)
    throw bad('senderSlotsFree', `is ${r.senderSlotsFree}, above senderSlots ${r.senderSlots}`);
}
