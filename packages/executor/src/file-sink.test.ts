import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir, type TempDir } from '@herald/testing';
import { FileDeliverySink, readDeliveryFile } from './file-sink';

const content = { body: 'hello' };
let dir: TempDir;

beforeEach(async () => {
  dir = await makeTempDir('herald-file-sink-');
});
afterEach(async () => {
  await dir.remove();
});

describe('FileDeliverySink', () => {
  it('writes 8-byte little-endian records: u32 uin, u32 flags with bit 0 = at login (byte fixture)', async () => {
    // The sink creates its directory on first use.
    const sink = new FileDeliverySink(join(dir.path, 'deliveries'));
    await sink.deliver({ taskId: 3, uins: Uint32Array.of(1, 0x01020304), content, atLogin: false });
    await sink.deliver({ taskId: 3, uins: Uint32Array.of(0xffffffff), content, atLogin: true });
    await sink.close();
    const bytes = await readFile(join(dir.path, 'deliveries', 'task-3.deliveries'));
    expect(bytes.toString('hex')).toBe(
      '01000000' +
        '00000000' + // uin 1, pushed online
        '04030201' +
        '00000000' + // uin 0x01020304
        'ffffffff' +
        '01000000', // uin 2^32-1, at login
    );
  });

  it('appends across batches, one file per task, and reads them back exactly', async () => {
    const sink = new FileDeliverySink(dir.path);
    await sink.deliver({ taskId: 1, uins: Uint32Array.of(10, 20, 30), content, atLogin: false });
    await sink.deliver({ taskId: 2, uins: Uint32Array.of(7), content, atLogin: true });
    await sink.deliver({ taskId: 1, uins: Uint32Array.of(40), content, atLogin: true });
    await sink.deliver({ taskId: 1, uins: new Uint32Array(0), content, atLogin: false });
    await sink.close();

    const one = await readDeliveryFile(dir.path, 1);
    expect([...one.uins]).toEqual([10, 20, 30, 40]);
    expect([...one.atLogin]).toEqual([0, 0, 0, 1]);
    const two = await readDeliveryFile(dir.path, 2);
    expect([...two.uins]).toEqual([7]);
    expect([...two.atLogin]).toEqual([1]);
  });

  it('keeps appending to an existing file after being closed and reopened', async () => {
    const first = new FileDeliverySink(dir.path);
    await first.deliver({ taskId: 5, uins: Uint32Array.of(1), content, atLogin: false });
    await first.close();
    const second = new FileDeliverySink(dir.path);
    await second.deliver({ taskId: 5, uins: Uint32Array.of(2), content, atLogin: true });
    await second.close();
    const records = await readDeliveryFile(dir.path, 5);
    expect([...records.uins]).toEqual([1, 2]);
    expect([...records.atLogin]).toEqual([0, 1]);
  });

  it('keeps every record of concurrent batches to one task', async () => {
    const sink = new FileDeliverySink(dir.path);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        sink.deliver({ taskId: 8, uins: Uint32Array.of(2 * i, 2 * i + 1), content, atLogin: false }),
      ),
    );
    await sink.close();
    const { uins } = await readDeliveryFile(dir.path, 8);
    expect([...uins].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i));
  });

  it('writes no file for an empty batch', async () => {
    const sink = new FileDeliverySink(dir.path);
    await sink.deliver({ taskId: 4, uins: new Uint32Array(0), content, atLogin: false });
    await sink.close();
    await expect(readFile(join(dir.path, 'task-4.deliveries'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('readDeliveryFile', () => {
  it('reads a missing file as no deliveries', async () => {
    const records = await readDeliveryFile(dir.path, 99);
    expect(records.uins).toEqual(new Uint32Array(0));
    expect(records.atLogin).toEqual(new Uint8Array(0));
    expect(await readDeliveryFile(join(dir.path, 'nowhere'), 1)).toEqual({
      uins: new Uint32Array(0),
      atLogin: new Uint8Array(0),
    });
  });
});
