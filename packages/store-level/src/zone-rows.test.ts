import type { StoredChunk } from '@herald/core/ports';
import { encodeZoneRow, updateZoneRow, zoneRowInto } from './zone-rows';

const bytes = (...values: number[]) => Uint8Array.of(...values);
const decoded = (row: Uint8Array | undefined, wanted?: ReadonlySet<string>) =>
  zoneRowInto(row!, 7, wanted, []).map((e) => [e.key, [...e.bytes]]);

describe('zone rows', () => {
  it('lays out each entry as key length, UTF-16LE key, chunk length, chunk bytes', () => {
    expect([...encodeZoneRow([{ key: 'tz=A', bytes: bytes(5, 0) }])!]).toEqual([
      0, 4, 0x74, 0, 0x7a, 0, 0x3d, 0, 0x41, 0, 0, 0, 0, 2, 5, 0,
    ]);
  });

  it('keeps entries in ascending key order (UTF-16 units, as `<`) and reads them back, any key spelling', () => {
    const entries = [
      { key: 'tz=Europe/Berlin', bytes: bytes(1, 0, 2, 0) },
      { key: 'tz=+05:30', bytes: bytes(3, 0) },
      { key: 'tz=\ud83d\ude00', bytes: bytes(4, 0) },
      { key: 'tz=\uffff', bytes: bytes(5, 0) },
      { key: 'tz=\ud800', bytes: bytes(6, 0) },
    ];
    const keys = entries.map((e) => e.key).sort();
    expect(decoded(encodeZoneRow(entries)).map(([key]) => key)).toEqual(keys);
    expect(keys[3]).toBe('tz=\ud83d\ude00'); // below '\uffff': UTF-16 units, not code points
    expect(decoded(encodeZoneRow(entries))).toContainEqual(['tz=Europe/Berlin', [1, 0, 2, 0]]);
    expect(encodeZoneRow([])).toBeUndefined();
  });

  it('answers only the wanted keys, as views of the row tagged with its chunk', () => {
    const row = encodeZoneRow([
      { key: 'tz=a', bytes: bytes(1, 0) },
      { key: 'tz=b', bytes: bytes(2, 0) },
      { key: 'tz=c', bytes: bytes(3, 0) },
    ])!;
    const out: StoredChunk[] = [{ key: 'x', chunk: 1, bytes: bytes(9, 0) }];
    zoneRowInto(row, 7, new Set(['tz=c', 'tz=a', 'tz=none']), out);
    expect(out.map((e) => [e.key, e.chunk, [...e.bytes]])).toEqual([
      ['x', 1, [9, 0]],
      ['tz=a', 7, [1, 0]],
      ['tz=c', 7, [3, 0]],
    ]);
    expect(out[1]!.bytes.buffer).toBe(row.buffer);
  });

  it('sets, replaces and drops entries, and answers undefined when none is left', () => {
    const row = encodeZoneRow([
      { key: 'tz=a', bytes: bytes(1, 0) },
      { key: 'tz=c', bytes: bytes(3, 0) },
    ]);
    const next = updateZoneRow(
      row,
      7,
      new Map<string, Uint8Array | undefined>([
        ['tz=b', bytes(2, 0)],
        ['tz=c', bytes(3, 0, 4, 0)],
        ['tz=a', undefined],
      ]),
    );
    expect(decoded(next)).toEqual([
      ['tz=b', [2, 0]],
      ['tz=c', [3, 0, 4, 0]],
    ]);
    expect(decoded(updateZoneRow(undefined, 7, new Map([['tz=a', bytes(1, 0)]])))).toEqual([['tz=a', [1, 0]]]);
    expect(
      updateZoneRow(
        next,
        7,
        new Map([
          ['tz=b', undefined],
          ['tz=c', undefined],
        ]),
      ),
    ).toBeUndefined();
    expect(updateZoneRow(undefined, 7, new Map([['tz=a', undefined]]))).toBeUndefined();
  });

  it('refuses a damaged row and a bad entry as INTERNAL errors', () => {
    const internal = expect.objectContaining({ code: 'INTERNAL' });
    const row = encodeZoneRow([
      { key: 'tz=a', bytes: bytes(1, 0) },
      { key: 'tz=b', bytes: bytes(2, 0) },
    ])!;
    expect(() => zoneRowInto(row.subarray(0, row.length - 1), 7, undefined, [])).toThrow(internal);
    expect(() => zoneRowInto(row.subarray(0, 3), 7, undefined, [])).toThrow(internal);
    expect(() => zoneRowInto(Buffer.alloc(0), 7, undefined, [])).toThrow(internal);
    const half = row.length / 2;
    const swapped = Buffer.concat([row.subarray(half), row.subarray(0, half)]);
    expect(() => zoneRowInto(swapped, 7, undefined, [])).toThrow(internal);
    expect(() => zoneRowInto(Buffer.concat([row, row]), 7, undefined, [])).toThrow(internal);
    expect(() => encodeZoneRow([{ key: 'tz=a', bytes: bytes() }])).toThrow(internal);
    expect(() =>
      encodeZoneRow([
        { key: 'tz=a', bytes: bytes(1, 0) },
        { key: 'tz=a', bytes: bytes(2, 0) },
      ]),
    ).toThrow(internal);
  });
});
