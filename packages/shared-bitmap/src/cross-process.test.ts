/**
 * The bitmap across processes: readers in child processes (test/reader-child.js,
 * which loads the compiled package from dist/, as an executor would) map the
 * writer's file, share its pages, see its stores, and cannot write.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir, waitFor } from '@herald/testing';
import { HEADER_BYTES, bitmapFileBytes } from './format';
import { SharedOnlineBitmap } from './shared-bitmap';

const PACKAGE = join(__dirname, '..');
const CHILD = join(PACKAGE, 'test', 'reader-child.js');
/** Child processes start slowly on a busy 2-core machine; the 2 s login deadline below is the one that matters. */
const START_MS = 20_000;

type Reply = {
  opened?: number;
  touched?: number;
  online?: number;
  watching?: number;
  seen?: number;
  error?: { message: string; reason?: string };
};

/** A reader process and every reply it sent. */
class ReaderChild {
  readonly replies: Reply[] = [];
  readonly process: ChildProcess;
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;

  constructor() {
    this.process = fork(CHILD, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.process.on('message', (reply: Reply) => this.replies.push(reply));
    this.process.on('exit', (code, signal) => (this.exit = { code, signal }));
  }

  send(message: object): void {
    this.process.send(message);
  }

  /** The first reply carrying `key`; throws (so waitFor's timeout error says why) if the child failed. */
  reply<K extends keyof Reply>(key: K): Reply | undefined {
    const failed = this.replies.find((r) => r.error !== undefined);
    if (failed) throw new Error(`reader child ${this.process.pid}: ${failed.error!.message}`);
    if (this.exit) throw new Error(`reader child ${this.process.pid} exited (${this.exit.code ?? this.exit.signal})`);
    return this.replies.find((r) => r[key] !== undefined);
  }
}

/** A directory on tmpfs (/dev/shm), where the production bitmap lives; the temporary directory if the host has none. */
async function shmTempDir(): Promise<{ path: string; remove(): Promise<void> }> {
  if (!statSync('/dev/shm', { throwIfNoEntry: false })?.isDirectory()) return makeTempDir('herald-shared-bitmap-');
  const path = mkdtempSync(join('/dev/shm', 'herald-shared-bitmap-'));
  return { path, remove: async () => rmSync(path, { recursive: true, force: true }) };
}

/** Rss and Pss (bytes) of a process's mappings of `file`, and their permissions, from /proc/<pid>/smaps. */
function mappingMemory(pid: number, file: string): { rss: number; pss: number; perms: string[] } {
  const result = { rss: 0, pss: 0, perms: [] as string[] };
  let inFile = false;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const header = /^[0-9a-f]+-[0-9a-f]+ (\S{4}) \S+ \S+ \d+\s+(.*)$/.exec(line);
    if (header) {
      inFile = header[2] === file;
      if (inFile) result.perms.push(header[1]!);
      continue;
    }
    const field = /^(Rss|Pss):\s+(\d+) kB$/.exec(line);
    if (inFile && field) result[field[1] === 'Rss' ? 'rss' : 'pss'] += Number(field[2]) * 1024;
  }
  return result;
}

describe('SharedOnlineBitmap across processes', () => {
  let dir: { path: string; remove(): Promise<void> };
  let children: ReaderChild[] = [];

  beforeAll(() => {
    if (!existsSync(join(PACKAGE, 'dist', 'index.js')))
      throw new Error('these tests load the compiled package: run `npx tsc -b packages/shared-bitmap` first');
  });
  beforeEach(async () => {
    dir = await shmTempDir();
  });
  afterEach(async () => {
    for (const child of children) if (child.exit === undefined) child.process.kill();
    await Promise.all(
      children.map((child) =>
        child.exit === undefined ? new Promise((resolve) => child.process.once('exit', resolve)) : undefined,
      ),
    );
    children = [];
    await dir.remove();
  });

  function startReaders(n: number, file: string, uinLimit: number): ReaderChild[] {
    const started = Array.from({ length: n }, () => new ReaderChild());
    children.push(...started);
    for (const child of started) child.send({ cmd: 'open', path: file, uinLimit });
    return started;
  }

  it('4 readers and the writer hold one physical copy: sum of Pss ~ one mapping, each Rss ~ the whole mapping', async () => {
    const uinLimit = 2 ** 29; // 64 MiB of words
    const file = join(dir.path, 'online.bitmap');
    const writer = SharedOnlineBitmap.openWriter(file, uinLimit);
    try {
      const bitsPerPage = 4096 * 8;
      for (let uin = 7; uin < uinLimit; uin += bitsPerPage) writer.setOnline(uin, true); // the writer touches every page
      const readers = startReaders(4, file, uinLimit);
      await waitFor(() => readers.every((child) => child.reply('opened')), {
        timeoutMs: START_MS,
        message: '4 readers opened the bitmap',
      });
      for (const child of readers) child.send({ cmd: 'touch' });
      await waitFor(() => readers.every((child) => child.reply('touched')), {
        timeoutMs: START_MS,
        message: '4 readers touched every page',
      });
      for (const child of readers)
        expect(child.reply('touched')).toEqual({ touched: uinLimit / bitsPerPage, online: 0 }); // page starts are offline; uin 7 of each is not asked

      const size = bitmapFileBytes(uinLimit);
      const processes = [
        { pid: process.pid, role: 'writer' },
        ...readers.map((child) => ({ pid: child.process.pid!, role: 'reader' })),
      ];
      const memory = processes.map(({ pid, role }) => ({ pid, role, ...mappingMemory(pid, file) }));
      const totalPss = memory.reduce((sum, m) => sum + m.pss, 0);
      const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(1);
      console.log(
        `mapping ${mib(size)} MiB; per process Rss/Pss MiB: ${memory.map((m) => `${m.role} ${mib(m.rss)}/${mib(m.pss)}`).join(', ')}; ` +
          `sum of Pss ${mib(totalPss)} MiB (${processes.length} private copies would be ${mib(processes.length * size)} MiB)`,
      );
      for (const m of memory) {
        expect(m.perms).toEqual([m.role === 'writer' ? 'rw-s' : 'r--s']); // shared; readers read-only
        expect(m.rss).toBeGreaterThanOrEqual(0.95 * size);
      }
      expect(totalPss).toBeLessThan(1.5 * size);
      expect(totalPss).toBeGreaterThan(0.9 * size);
    } finally {
      writer.close();
    }
  });

  it('a reader in another process sees a login within 2 s', async () => {
    const file = join(dir.path, 'online.bitmap');
    const writer = SharedOnlineBitmap.openWriter(file, 1 << 20);
    try {
      const [reader] = startReaders(1, file, 1 << 20);
      await waitFor(() => reader!.reply('opened') !== undefined, {
        timeoutMs: START_MS,
        message: 'the reader opened the bitmap',
      });
      reader!.send({ cmd: 'watch', uin: 123_457 });
      await waitFor(() => reader!.reply('watching') !== undefined, {
        timeoutMs: START_MS,
        message: 'the reader is watching uin 123457',
      });
      expect(reader!.reply('seen')).toBeUndefined();

      writer.setOnline(123_457, true); // the login
      const loggedInAt = performance.now();
      await waitFor(() => reader!.reply('seen') !== undefined, {
        timeoutMs: 2000,
        intervalMs: 1,
        message: 'the reader saw the login',
      });
      console.log(
        `the reader process saw the login after ${(performance.now() - loggedInAt).toFixed(1)} ms (IPC round trip included)`,
      );
    } finally {
      writer.close();
    }
  });

  it('a store through a reader mapping kills the process (SIGSEGV) and changes nothing', async () => {
    const file = join(dir.path, 'online.bitmap');
    SharedOnlineBitmap.openWriter(file, 1 << 16).close();
    // ulimit -c 0: no core file from the expected crash.
    const child = spawn(
      '/bin/sh',
      ['-c', 'ulimit -c 0; exec "$0" "$@"', process.execPath, CHILD, 'store-through-mapping', file],
      { cwd: dir.path, stdio: 'ignore' },
    );
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    child.on('exit', (code, signal) => (exit = { code, signal }));
    await waitFor(() => exit !== undefined, { timeoutMs: START_MS, message: 'the storing child exited' });
    expect(exit).toEqual({ code: null, signal: 'SIGSEGV' });
    expect(
      readFileSync(file)
        .subarray(HEADER_BYTES)
        .every((byte) => byte === 0),
    ).toBe(true);
  });
});
