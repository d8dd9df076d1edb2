import { decode, encode } from './v1';
import { expectFixture, expectHeaderAndLengthChecks, frameErrorCode, hex, patched } from '../frame.test-util';
import type { HostLoadMessage } from '../types';

const sample: HostLoadMessage = {
  kind: 'host.load',
  report: {
    executorId: 'e1',
    sentAt: 0x0102030405,
    cpuCores: 8,
    cpuBusyPermille: 1000,
    memTotalBytes: 2 ** 34,
    memAvailableBytes: 2 ** 33,
    nicCapacityBytesPerSecond: 125_000_000,
    nicBytesPerSecond: 1,
    senderSlots: 4,
    senderSlotsFree: 4,
  },
};
//  kind version executorId  sentAt           cpuCores cpuBusy  memTotal         memAvailable     nicCapacity      nicBytes         slots    free
const FIXTURE =
  '0b 01 02006531 0504030201000000 08000000 e8030000 0000000004000000 0000000002000000 40597307 00000000 0100000000000000 04000000 04000000';
/** Where the checked fields start in the fixture. */
const AT = { cpuBusyPermille: 18, memAvailableBytes: 30, senderSlotsFree: 58 };

describe('host.load v1', () => {
  it('matches the byte fixture', () => expectFixture({ encode, decode }, sample, FIXTURE));

  it('round-trips the extremes', () => {
    const big = 2 ** 53 - 1;
    const msg: HostLoadMessage = {
      kind: 'host.load',
      report: {
        executorId: '执行-1',
        sentAt: big,
        cpuCores: 2 ** 32 - 1,
        cpuBusyPermille: 0,
        memTotalBytes: big,
        memAvailableBytes: big,
        nicCapacityBytesPerSecond: big,
        nicBytesPerSecond: big,
        senderSlots: 0,
        senderSlotsFree: 0,
      },
    };
    expect(decode(encode(msg))).toEqual(msg);
  });

  it('rejects truncation, trailing bytes and other versions', () =>
    expectHeaderAndLengthChecks({ encode, decode }, FIXTURE));

  it.each([
    ['cpuBusyPermille above 1000', AT.cpuBusyPermille, [0xe9, 0x03, 0, 0]],
    ['memAvailableBytes above memTotalBytes', AT.memAvailableBytes, [0, 0, 0, 0, 5, 0, 0, 0]],
    ['senderSlotsFree above senderSlots', AT.senderSlotsFree, [5, 0, 0, 0]],
  ])('refuses %s, on both sides', (_name, offset, bytes) => {
    expect(frameErrorCode(() => decode(patched(hex(FIXTURE), offset, bytes)))).toBe('FRAME_MALFORMED');
    const bad = decodeUnchecked(patched(hex(FIXTURE), offset, bytes));
    expect(frameErrorCode(() => encode(bad))).toBe('FRAME_MALFORMED');
  });

  it('refuses to encode a fraction or a negative', () => {
    expect(frameErrorCode(() => encode({ ...sample, report: { ...sample.report, cpuCores: 1.5 } }))).toBe(
      'FRAME_MALFORMED',
    );
    expect(frameErrorCode(() => encode({ ...sample, report: { ...sample.report, nicBytesPerSecond: -1 } }))).toBe(
      'FRAME_MALFORMED',
    );
  });
});

/** The report a patched fixture carries, read field by field without the "at most" checks: what a buggy sender would hold. */
function decodeUnchecked(frame: Buffer): HostLoadMessage {
  const u64 = (at: number) => frame.readUInt32LE(at) + frame.readUInt32LE(at + 4) * 2 ** 32;
  return {
    kind: 'host.load',
    report: {
      executorId: 'e1',
      sentAt: u64(6),
      cpuCores: frame.readUInt32LE(14),
      cpuBusyPermille: frame.readUInt32LE(18),
      memTotalBytes: u64(22),
      memAvailableBytes: u64(30),
      nicCapacityBytesPerSecond: u64(38),
      nicBytesPerSecond: u64(46),
      senderSlots: frame.readUInt32LE(54),
      senderSlotsFree: frame.readUInt32LE(58),
    },
  };
}
