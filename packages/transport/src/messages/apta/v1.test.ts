import type { AptaMessage, AptaTableEntry } from '@herald/core/apta';
import { decode, encode } from './v1';
import { expectFixture, expectHeaderAndLengthChecks, frameErrorCode, hex, patched } from '../frame.test-util';
import type { AptaEnvelope } from '../types';

const hello: AptaEnvelope = {
  kind: 'apta',
  message: {
    kind: 'hello',
    from: 'sch-1',
    incarnation: 1000,
    seq: 7,
    state: 'WORKING',
    takesWork: true,
    table: [{ id: 'if-1', incarnation: 2, seq: 3, state: 'SILENCE', takesWork: false }],
  },
};
//                     kind version type status incarnation      seq              from            count    row: status incarnation      seq              id ("if-1")
const HELLO_FIXTURE =
  '0a 01      01   83     e803000000000000 0700000000000000 0500 7363682d31 01000000 02 0200000000000000 0300000000000000 0400 69662d31';

const lsrReply: AptaEnvelope = {
  kind: 'apta',
  message: {
    kind: 'lsr.reply',
    requestId: 5,
    from: 'a',
    incarnation: 1,
    seq: 2,
    state: 'ONLINE',
    takesWork: false,
    table: [],
  },
};
//                   kind version type status incarnation      seq              requestId        from    count
const LSR_FIXTURE = '0a 01      04   01     0100000000000000 0200000000000000 0500000000000000 0100 61 00000000';

/** The hello fixture up to its table count, to append rows by hand. */
const HELLO_HEAD = '0a 01 01 83 e803000000000000 0700000000000000 0500 7363682d31';

const row = (i: number): AptaTableEntry => ({
  id: `scheduler-${String(i).padStart(2, '0')}`,
  incarnation: 1_700_000_000_000 + i,
  seq: 1000 * i,
  state: (['JOINING', 'ONLINE', 'SILENCE', 'WORKING', 'OFFLINE'] as const)[i % 5],
  takesWork: i % 3 !== 0,
});

describe('apta v1', () => {
  it('matches the byte fixtures (a hello with one row, an lsr.reply with an empty table)', () => {
    expectFixture({ encode, decode }, hello, HELLO_FIXTURE);
    expectFixture({ encode, decode }, lsrReply, LSR_FIXTURE);
  });

  it('round-trips every kind and state, requestId only on the LSR pair', () => {
    const advert = { from: 'p', incarnation: 9, seq: Number.MAX_SAFE_INTEGER, takesWork: true, table: [row(1)] };
    const messages: AptaMessage[] = [
      { kind: 'hello', state: 'JOINING', ...advert },
      { kind: 'hello.reply', state: 'OFFLINE', ...advert },
      { kind: 'lsr.request', requestId: 0, state: 'SILENCE', ...advert },
      { kind: 'lsr.reply', requestId: Number.MAX_SAFE_INTEGER, state: 'WORKING', ...advert },
    ];
    for (const message of messages) {
      const frame = encode({ kind: 'apta', message });
      expect(frame[2]).toBe(['hello', 'hello.reply', 'lsr.request', 'lsr.reply'].indexOf(message.kind) + 1);
      expect(decode(frame)).toEqual({ kind: 'apta', message });
    }
    expect(encode({ kind: 'apta', message: messages[2]! }).length).toBe(
      encode({ kind: 'apta', message: messages[0]! }).length + 8,
    );
  });

  it('round-trips a job-process table of 50 rows in about 1.5 KB', () => {
    const table = Array.from({ length: 50 }, (_, i) => row(i + 1));
    const msg: AptaEnvelope = { kind: 'apta', message: { ...hello.message, table } };
    const frame = encode(msg);
    expect(decode(frame)).toEqual(msg);
    // 20 fixed bytes + from 7 + count 4, then 50 rows of 19 + 12 ('scheduler-NN')
    expect(frame.length).toBe(31 + 50 * 31);
  });

  it('rejects truncation, trailing bytes and other versions', () => {
    expectHeaderAndLengthChecks({ encode, decode }, HELLO_FIXTURE);
    expectHeaderAndLengthChecks({ encode, decode }, LSR_FIXTURE);
  });

  it('rejects an unknown type and a status outside the states or with reserved bits', () => {
    const frame = hex(HELLO_FIXTURE);
    for (const type of [0, 5, 255])
      expect(frameErrorCode(() => decode(patched(frame, 2, [type])))).toBe('FRAME_MALFORMED');
    for (const status of [0x05, 0x07, 0x08, 0x40, 0x85]) {
      expect(frameErrorCode(() => decode(patched(frame, 3, [status])))).toBe('FRAME_MALFORMED');
      expect(frameErrorCode(() => decode(patched(frame, 31, [status])))).toBe('FRAME_MALFORMED'); // the row's status
    }
    expect(decode(patched(frame, 31, [0x84])).message.table[0]).toMatchObject({ state: 'OFFLINE', takesWork: true });
  });

  it('rejects a row count that disagrees with the rows', () => {
    const oneRow = '02 0200000000000000 0300000000000000 0400 69662d31';
    expect(frameErrorCode(() => decode(hex(`${HELLO_HEAD} 02000000 ${oneRow}`)))).toBe('FRAME_MALFORMED');
    expect(frameErrorCode(() => decode(hex(`${HELLO_HEAD} 00000000 ${oneRow}`)))).toBe('FRAME_MALFORMED');
    expect(frameErrorCode(() => decode(hex(`${HELLO_HEAD} ffffffff ${oneRow}`)))).toBe('FRAME_MALFORMED');
    expect(decode(hex(`${HELLO_HEAD} 02000000 ${oneRow} ${oneRow}`)).message.table).toHaveLength(2);
  });

  it("rejects a frame that decodes to a message core's checkAptaMessage refuses", () => {
    const withRowId = (id: string) => {
      const bytes = Buffer.from(id, 'utf8');
      return hex(
        `${HELLO_HEAD} 01000000 02 0200000000000000 0300000000000000 ${bytes.length.toString(16).padStart(2, '0')}00 ${bytes.toString('hex')}`,
      );
    };
    for (const id of ['', 'a b', 'é', 'x'.repeat(65), '../etc'])
      expect([id, frameErrorCode(() => decode(withRowId(id)))]).toEqual([id, 'FRAME_MALFORMED']);
    expect(decode(withRowId('x'.repeat(64))).message.table[0]!.id).toBe('x'.repeat(64));
    expect(frameErrorCode(() => decode(hex('0a 01 01 83 e803000000000000 0700000000000000 0000 00000000')))).toBe(
      'FRAME_MALFORMED',
    ); // empty from
  });

  it('rejects invalid UTF-8 in an id', () => {
    expect(frameErrorCode(() => decode(hex('0a 01 01 83 e803000000000000 0700000000000000 0200 c0af 00000000')))).toBe(
      'FRAME_MALFORMED',
    );
  });

  it('refuses to encode a message the wire or the state machine would refuse', () => {
    const bad = (patch: Record<string, unknown>) =>
      ({ kind: 'apta', message: { ...hello.message, ...patch } }) as AptaEnvelope;
    for (const patch of [
      { from: 'not an id' },
      { state: 'ASLEEP' },
      { seq: -1 },
      { incarnation: 2 ** 53 },
      { takesWork: 'yes' },
      { kind: 'goodbye' },
      { kind: 'lsr.request' }, // no requestId
      { table: [{ ...row(1), seq: 1.5 }] },
      { table: 'none' },
    ]) {
      expect([patch, frameErrorCode(() => encode(bad(patch)))]).toEqual([patch, 'FRAME_MALFORMED']);
    }
  });
});
