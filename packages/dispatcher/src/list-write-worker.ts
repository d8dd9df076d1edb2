/**
 * A worker thread that writes one recipient-list file (list-write-thread.ts):
 * it reads the list where it lies, in shared memory, encodes it, checksums it
 * and writes it with writeRecipientListFile, then answers what was written or
 * why it failed, and ends.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { writeRecipientListFile, type WrittenList } from '@herald/audience';

export interface ListWriteRequest {
  path: string;
  buffer: SharedArrayBuffer;
  /** The list's first uin's index in `buffer`, in uins. */
  start: number;
  length: number;
  flags: number;
}

export type ListWriteReply = { written: WrittenList } | { error: { message: string; code?: string; name: string } };

async function write(request: ListWriteRequest): Promise<ListWriteReply> {
  try {
    const uins = new Uint32Array(request.buffer, request.start * 4, request.length);
    return { written: await writeRecipientListFile(request.path, uins, request.flags) };
  } catch (error) {
    const { message, name, code } = error as Error & { code?: unknown };
    return { error: { message, name, ...(typeof code === 'string' ? { code } : {}) } };
  }
}

if (parentPort !== null) {
  const port = parentPort;
  void write(workerData as ListWriteRequest).then((reply) => port.postMessage(reply));
}
