import { mkdir, open, readFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Delivery, DeliveryGateway } from '@herald/core';

/**
 * The file delivery sink: the first DeliveryGateway adapter, for tests and
 * demos. Format (documented in docs/delivery-file-sink.md):
 *
 *   <dir>/task-<taskId>.deliveries   a sequence of 8-byte records
 *     u32 LE  uin
 *     u32 LE  flags   bit 0: delivered at login (from the offline list)
 *
 * Each `deliver` appends one batch with a single write. A record's
 * idempotency key is (taskId, uin): after a crash a batch may appear twice.
 */
export class FileDeliverySink implements DeliveryGateway {
  private readonly files = new Map<number, Promise<FileHandle>>();
  private ready: Promise<unknown> | undefined;

  constructor(readonly dir: string) {}

  async deliver(delivery: Delivery): Promise<void> {
    const n = delivery.uins.length;
    if (n === 0) return;
    const record = Buffer.allocUnsafe(n * 8);
    const words = new Uint32Array(record.buffer, record.byteOffset, n * 2);
    const flags = delivery.atLogin ? 1 : 0;
    for (let i = 0; i < n; i++) {
      words[2 * i] = delivery.uins[i]!;
      words[2 * i + 1] = flags;
    }
    const file = await this.fileOf(delivery.taskId);
    await file.write(record, 0, record.length);
  }

  async close(): Promise<void> {
    const handles = await Promise.all(this.files.values());
    this.files.clear();
    await Promise.all(handles.map((h) => h.close()));
  }

  private fileOf(taskId: number): Promise<FileHandle> {
    let file = this.files.get(taskId);
    if (file === undefined) {
      this.ready ??= mkdir(this.dir, { recursive: true });
      file = this.ready.then(() => open(join(this.dir, `task-${taskId}.deliveries`), 'a'));
      this.files.set(taskId, file);
    }
    return file;
  }
}

export interface SinkRecords {
  uins: Uint32Array;
  atLogin: Uint8Array;
}

/** Reads one task's delivery file back (tests, demo summaries). Missing file: no deliveries. */
export async function readDeliveryFile(dir: string, taskId: number): Promise<SinkRecords> {
  let bytes: Buffer;
  try {
    bytes = await readFile(join(dir, `task-${taskId}.deliveries`));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { uins: new Uint32Array(0), atLogin: new Uint8Array(0) };
    throw error;
  }
  const n = Math.floor(bytes.length / 8);
  const uins = new Uint32Array(n);
  const atLogin = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    uins[i] = bytes.readUInt32LE(8 * i);
    atLogin[i] = bytes.readUInt32LE(8 * i + 4) & 1;
  }
  return { uins, atLogin };
}
