import { ListFormatError } from '../errors';
import {
  bitAt,
  countBits,
  decodeDeliveryRecord,
  decodeRemovedHeader,
  encodeDeliveryRecord,
  encodeRemovedSets,
  encodeRemovedHeader,
  onlineBitsOf,
  removedBetween,
  removedHeaderBytes,
  removedSectionCount,
} from './index';

describe('onlineBitsOf', () => {
  it('sets the bit of each online position and no other', () => {
    const uins = Uint32Array.of(2, 5, 9, 11, 20, 21, 22, 23, 30);
    const bits = onlineBitsOf(uins, Uint32Array.of(5, 11, 30));
    expect(bits.length).toBe(2);
    expect(Array.from(uins, (_, i) => bitAt(bits, i))).toEqual([
      false,
      true,
      false,
      true,
      false,
      false,
      false,
      false,
      true,
    ]);
    expect(countBits(bits, uins.length)).toBe(3);
  });

  it('refuses an online set that is not an in-order subset', () => {
    expect(() => onlineBitsOf(Uint32Array.of(1, 2), Uint32Array.of(3))).toThrow(RangeError);
  });
});

describe('removedBetween', () => {
  it('is the multiset difference: extra copies for dedupe, removed members for a subtracting link', () => {
    expect(Array.from(removedBetween(Uint32Array.of(1, 1, 1, 4, 6, 6), Uint32Array.of(1, 4, 6)))).toEqual([1, 1, 6]);
    expect(Array.from(removedBetween(Uint32Array.of(1, 4, 6, 8), Uint32Array.of(4, 8)))).toEqual([1, 6]);
  });

  it('refuses an after that is not a sub-multiset', () => {
    expect(() => removedBetween(Uint32Array.of(1, 2), Uint32Array.of(3))).toThrow(RangeError);
  });
});

describe('delivery record codec', () => {
  it('round-trips a record', () => {
    const online = onlineBitsOf(Uint32Array.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), Uint32Array.of(2, 10));
    const record = { taskId: 4, from: 4096, count: 10, online, executor: 'exec-1', at: 1_700_000_000_123 };
    const bytes = encodeDeliveryRecord(record);
    expect(bytes.length).toBe(14 + 6 + 2);
    expect(decodeDeliveryRecord(4, 4096, bytes)).toEqual(record);
  });

  it('refuses a truncated record or another version', () => {
    const bytes = encodeDeliveryRecord({
      taskId: 1,
      from: 0,
      count: 9,
      online: new Uint8Array(2),
      executor: 'e',
      at: 1,
    });
    expect(() => decodeDeliveryRecord(1, 0, bytes.subarray(0, bytes.length - 1))).toThrow(ListFormatError);
    const other = bytes.slice();
    other[0] = 2;
    expect(() => decodeDeliveryRecord(1, 0, other)).toThrow(/version 2/);
  });
});

describe('removed-sets codec', () => {
  it('writes sections in chain order and finds them again', () => {
    const bytes = encodeRemovedSets(
      [
        { reason: 'duplicate', uins: Uint32Array.of(3, 3, 8) },
        { reason: 'blacklisted', uins: Uint32Array.of(5) },
      ],
      true,
    );
    expect(removedSectionCount(bytes.subarray(0, 8))).toBe(2);
    const header = decodeRemovedHeader(bytes);
    expect(header.bytes).toBe(removedHeaderBytes(2));
    expect(header.complete).toBe(true);
    expect(header.sections).toEqual([
      { reason: 'duplicate', count: 3, offset: 24 },
      { reason: 'blacklisted', count: 1, offset: 36 },
    ]);
    const view = new DataView(bytes.buffer);
    expect(view.getUint32(36, true)).toBe(5);
    expect(bytes.length).toBe(24 + 4 * 4);
  });

  it('writes the header alone as the whole file begins, for a writer streaming the uins after it', () => {
    const sets = [
      { reason: 'duplicate' as const, uins: Uint32Array.of(3, 3, 8) },
      { reason: 'already_sent' as const, uins: Uint32Array.of() },
      { reason: 'over_frequency' as const, uins: Uint32Array.of(5, 2 ** 32 - 1) },
    ];
    for (const complete of [true, false]) {
      const whole = encodeRemovedSets(sets, complete);
      const head = encodeRemovedHeader(
        sets.map((s) => ({ reason: s.reason, count: s.uins.length })),
        complete,
      );
      const uins = Uint32Array.from(sets.flatMap((s) => [...s.uins]));
      const streamed = new Uint8Array(head.length + uins.length * 4);
      streamed.set(head);
      uins.forEach((uin, i) => new DataView(streamed.buffer).setUint32(head.length + i * 4, uin, true));
      expect(Buffer.from(streamed).equals(Buffer.from(whole))).toBe(true);
      expect(decodeRemovedHeader(head).complete).toBe(complete);
    }
  });

  it('refuses a wrong magic and an unknown reason', () => {
    const bytes = encodeRemovedSets([{ reason: 'duplicate', uins: Uint32Array.of(1) }], false);
    const magic = bytes.slice();
    magic[0] = 0;
    expect(() => decodeRemovedHeader(magic)).toThrow(/magic/);
    const reason = bytes.slice();
    reason[8] = 200;
    expect(() => decodeRemovedHeader(reason)).toThrow(/reason/);
  });
});
