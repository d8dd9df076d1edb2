import { batchIdempotencyKey, deliveryRecords, RecordTooLarge, type DeliveryRecordValue } from './delivery-record';

const content = { body: 'hi' };
const valueOf = (record: { value: Buffer }) => JSON.parse(record.value.toString('utf8')) as DeliveryRecordValue;

describe('delivery records', () => {
  it('cuts a batch into one record per uin range, keyed by it, all with the batch idempotency key', () => {
    const uins = Uint32Array.of(0, 255, 256, 1000, 0xffffffff);
    const records = deliveryRecords({ taskId: 3, uins, content, atLogin: true }, 8, 1_000_000);
    expect(records.map((r) => [r.key, valueOf(r).uins])).toEqual([
      ['0', [0, 255]],
      ['1', [256]],
      ['3', [1000]],
      ['16777215', [0xffffffff]],
    ]);
    for (const record of records) expect(record.headers['idempotency-key']).toBe('3:L:0:4294967295:5');
  });

  it('keeps a batch whole under keyShiftBits 32 and splits every uin under 0', () => {
    const uins = Uint32Array.of(1, 2, 3);
    expect(deliveryRecords({ taskId: 1, uins, content, atLogin: false }, 32, 1_000_000).map((r) => r.key)).toEqual([
      '0',
    ]);
    expect(deliveryRecords({ taskId: 1, uins, content, atLogin: false }, 0, 1_000_000).map((r) => r.key)).toEqual([
      '1',
      '2',
      '3',
    ]);
  });

  it('halves a record over the limit, each part with its own contents, in order', () => {
    const uins = Uint32Array.from({ length: 100 }, (_, i) => i);
    const contents = [...uins].map((uin) => ({ body: `hello ${uin} ${'x'.repeat(50)}` }));
    const records = deliveryRecords({ taskId: 2, uins, content, contents, atLogin: false }, 20, 2000);
    expect(records.length).toBeGreaterThan(2);
    for (const record of records) expect(record.value.length).toBeLessThanOrEqual(2000);
    expect(records.flatMap((r) => valueOf(r).uins)).toEqual([...uins]);
    expect(records.flatMap((r) => valueOf(r).contents)).toEqual(contents);
  });

  it('throws RecordTooLarge naming the recipient whose record alone is over the limit', () => {
    const attempt = () =>
      deliveryRecords(
        { taskId: 2, uins: Uint32Array.of(5), content: { body: 'x'.repeat(3000) }, atLogin: false },
        20,
        2000,
      );
    expect(attempt).toThrow(RecordTooLarge);
    expect(attempt).toThrow(/uin 5/);
  });

  it('writes the display time, or null without one', () => {
    const [timed] = deliveryRecords(
      { taskId: 4, uins: Uint32Array.of(1), content, atLogin: false, displayAt: 7 },
      20,
      1e6,
    );
    const [untimed] = deliveryRecords({ taskId: 4, uins: Uint32Array.of(1), content, atLogin: false }, 20, 1e6);
    expect([valueOf(timed!).displayAt, valueOf(untimed!).displayAt]).toEqual([7, null]);
    expect(batchIdempotencyKey({ taskId: 4, uins: Uint32Array.of(1), content, atLogin: false })).toBe('4:P:1:1:1');
  });
});
