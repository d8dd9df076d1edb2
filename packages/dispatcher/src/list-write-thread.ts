/**
 * writeRecipientListFile in a worker thread of its own, for a large list
 * written while this thread has other work: the 10^7-recipient filtered list
 * of a local-time task is written while this thread groups the recipients
 * (preprocess.ts), and its encoding and CRC-32 (some 100 ms of CPU) then run
 * on another core instead of between the grouping's steps.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { ErrorCodes, HeraldError } from '@herald/core';
import { writeRecipientListFile, type WrittenList } from '@herald/audience';
import type { ListWriteReply, ListWriteRequest } from './list-write-worker';

/**
 * Lists shorter than this are written on this thread: starting a worker costs
 * tens of milliseconds, about what encoding 10^6 uins takes.
 */
export const THREAD_WRITE_FROM = 1 << 20;

/**
 * Writes `uins` as writeRecipientListFile does (same file, same guarantees),
 * in a worker thread when the list is long. `uins` must not change until the
 * write settles; a list not in shared memory is copied there first.
 * A failure is rethrown here with its message and, if it had one, its code.
 */
export async function writeListInThread(path: string, uins: Uint32Array, flags = 0): Promise<WrittenList> {
  if (uins.length < THREAD_WRITE_FROM) return writeRecipientListFile(path, uins, flags);
  const shared = inSharedMemory(uins);
  const request: ListWriteRequest = {
    path,
    buffer: shared.buffer as SharedArrayBuffer,
    start: shared.byteOffset / 4,
    length: shared.length,
    flags,
  };
  const reply = await run(new Worker(workerScript(), { workerData: request }));
  if ('written' in reply) return reply.written;
  throw rebuilt(reply.error, path);
}

function inSharedMemory(uins: Uint32Array): Uint32Array {
  if (uins.buffer instanceof SharedArrayBuffer) return uins;
  const copy = new Uint32Array(new SharedArrayBuffer(uins.byteLength));
  copy.set(uins);
  return copy;
}

/** The worker's one reply; a worker that fails or ends without one is an INTERNAL error. */
function run(worker: Worker): Promise<ListWriteReply> {
  return new Promise((resolve, reject) => {
    let replied = false;
    worker.once('message', (reply: ListWriteReply) => {
      replied = true;
      resolve(reply);
    });
    worker.once('error', (error) =>
      reject(new HeraldError(ErrorCodes.INTERNAL, `list write worker failed: ${error.message}`, { cause: error })),
    );
    worker.once('exit', (code) => {
      if (!replied) reject(new HeraldError(ErrorCodes.INTERNAL, `list write worker exited with code ${code}`));
    });
  });
}

/** The worker's failure as an Error of this thread, keeping what callers test: its message and its code. */
function rebuilt(error: { message: string; code?: string; name: string }, path: string): Error {
  const rethrown = new Error(`${error.message} (writing ${path} in a worker thread)`);
  rethrown.name = error.name;
  return error.code === undefined ? rethrown : Object.assign(rethrown, { code: error.code });
}

/** The built worker script: next to this file when it runs from dist/, the built one when ts-jest runs the sources. */
function workerScript(): string {
  const here = join(__dirname, 'list-write-worker.js');
  return existsSync(here) ? here : join(__dirname, '..', 'dist', 'list-write-worker.js');
}
