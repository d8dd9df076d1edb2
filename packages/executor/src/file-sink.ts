import { mkdir, open, readFile, writeFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCodes, HeraldError, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '@herald/core';
import type { Delivery, DeliveryGateway } from '@herald/core/ports';

/**
 * The file delivery sink: the first DeliveryGateway adapter, for tests and
 * demos. Format (documented in docs/delivery-file-sink.md):
 *
 *   <dir>/task-<taskId>.deliveries   a sequence of 8-byte records
 *     u32 LE  uin
 *     u32 LE  flags   bit 0: delivered at login (from the offline list)
 *   <dir>/task-<taskId>.json         what every record of the task carries:
 *     { taskId, content, displayAt }   (displayAt null: shown on arrival)
 *   <dir>/task-<taskId>.contents     a personalised (template) task only: one
 *     JSON line per recipient, { uin, content }, what that recipient received
 *
 * Each `deliver` appends one batch with a single write, after the task's
 * .json is in place (written once per task by each sink; the same content
 * every time). A record's idempotency key is (taskId, uin): after a crash a
 * batch may appear twice.
 */
export class FileDeliverySink implements DeliveryGateway {
  private readonly files = new Map<string, Promise<FileHandle>>();
  private readonly described = new Map<number, Promise<void>>();
  private ready: Promise<unknown> | undefined;
  private closed = false;

  constructor(readonly dir: string) {}

  async deliver(delivery: Delivery): Promise<void> {
    if (this.closed) throw new HeraldError(ErrorCodes.UNAVAILABLE, 'the file delivery sink is closed');
    const n = delivery.uins.length;
    if (n === 0) return;
    await this.describe(delivery);
    const record = Buffer.allocUnsafe(n * 8);
    const words = new Uint32Array(record.buffer, record.byteOffset, n * 2);
    const flags = delivery.atLogin ? 1 : 0;
    for (let i = 0; i < n; i++) {
      words[2 * i] = delivery.uins[i]!;
      words[2 * i + 1] = flags;
    }
    // A recipient's own content is in place before its record: a record never lacks it.
    if (delivery.contents !== undefined) await this.writeContents(delivery);
    const file = await this.fileOf(delivery.taskId);
    await file.write(record, 0, record.length);
  }

  private async writeContents({ taskId, uins, contents }: Delivery): Promise<void> {
    let lines = '';
    for (let i = 0; i < uins.length; i++) lines += `${JSON.stringify({ uin: uins[i], content: contents![i] })}\n`;
    const file = await this.fileOf(taskId, 'contents');
    await file.write(lines);
  }

  async close(): Promise<void> {
    this.closed = true;
    const handles = await Promise.all(this.files.values());
    this.files.clear();
    await Promise.all(handles.map((h) => h.close()));
  }

  /** Writes the task's .json once; a failed write is tried again by the next batch. */
  private describe({ taskId, content, displayAt }: Delivery): Promise<void> {
    let written = this.described.get(taskId);
    if (written === undefined) {
      this.ready ??= mkdir(this.dir, { recursive: true, mode: PRIVATE_DIR_MODE });
      const json = JSON.stringify({ taskId, content, displayAt: displayAt ?? null });
      written = this.ready.then(() =>
        writeFile(join(this.dir, `task-${taskId}.json`), json, { mode: PRIVATE_FILE_MODE }),
      );
      this.described.set(taskId, written);
      written.catch(() => this.described.delete(taskId));
    }
    return written;
  }

  private fileOf(taskId: number, kind: 'deliveries' | 'contents' = 'deliveries'): Promise<FileHandle> {
    const name = `task-${taskId}.${kind}`;
    let file = this.files.get(name);
    if (file === undefined) {
      this.ready ??= mkdir(this.dir, { recursive: true, mode: PRIVATE_DIR_MODE });
      file = this.ready.then(() => open(join(this.dir, name), 'a', PRIVATE_FILE_MODE));
      this.files.set(name, file);
    }
    return file;
  }
}

export interface SinkRecords {
  uins: Uint32Array;
  atLogin: Uint8Array;
  /** From the task's .json; undefined when nothing was delivered. */
  content?: Delivery['content'];
  /** From the task's .json: the display time, or null (shown on arrival); undefined when nothing was delivered. */
  displayAt?: number | null;
  /** A personalised task: what each recipient received (the last line per uin); undefined otherwise. */
  contents?: Map<number, Delivery['content']>;
}

/** Reads one task's delivery file back (tests, demo summaries). Missing file: no deliveries. */
export async function readDeliveryFile(dir: string, taskId: number): Promise<SinkRecords> {
  let bytes: Buffer;
  try {
    bytes = await readFile(join(dir, `task-${taskId}.deliveries`));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { uins: new Uint32Array(0), atLogin: new Uint8Array(0) };
    throw error;
  }
  const n = Math.floor(bytes.length / 8);
  const uins = new Uint32Array(n);
  const atLogin = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    uins[i] = bytes.readUInt32LE(8 * i);
    atLogin[i] = bytes.readUInt32LE(8 * i + 4) & 1;
  }
  let description: string;
  try {
    description = await readFile(join(dir, `task-${taskId}.json`), 'utf8');
  } catch (error) {
    // Records written before sinks wrote a task's .json.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { uins, atLogin };
    throw error;
  }
  const { content, displayAt } = JSON.parse(description) as { content: Delivery['content']; displayAt: number | null };
  const contents = await readContents(dir, taskId);
  return { uins, atLogin, content, displayAt, ...(contents === undefined ? {} : { contents }) };
}

async function readContents(dir: string, taskId: number): Promise<Map<number, Delivery['content']> | undefined> {
  let text: string;
  try {
    text = await readFile(join(dir, `task-${taskId}.contents`), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const contents = new Map<number, Delivery['content']>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const { uin, content } = JSON.parse(line) as { uin: number; content: Delivery['content'] };
    contents.set(uin, content);
  }
  return contents;
}
