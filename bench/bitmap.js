#!/usr/bin/env node
/**
 * Online-bitmap lookups on one core, through the shared-memory bitmap
 * (@herald/shared-bitmap, compiled): a 2^32-bit (512 MiB) bitmap file in
 * /dev/shm (else the temporary directory), 30% of all uins online at random,
 * and 10^7 random uins looked up (a) sorted and (b) in random order, via
 * partition() in 4,096-uin batches (what an executor does with each batch)
 * and via isOnline() one by one. The same lookups over a private heap copy
 * (core's TypedArrayBitmap over a new Uint32Array) are the control: shared
 * memory should cost nothing. Prints a table and, with --record, appends it
 * to bench/RESULTS.md with the date, machine and commit. The file is removed
 * at the end.
 *
 *   node bench/bitmap.js [--lookups 1e7] [--online 0.3] [--uin-bits 32] [--runs 5] [--advice random] [--record]
 *
 * Setup note: the bitmap's words are filled with pwrite on the file (the
 * writer's and readers' mappings see the same pages), because 1.3*10^9
 * setOnline calls would take minutes; the online share is approximated to
 * k/256 per bit (0.3 -> 77/256 = 0.301).
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { mulberry32 } = require('@herald/core');
const { TypedArrayBitmap } = require('@herald/core/presence');
const { SharedOnlineBitmap } = require('@herald/shared-bitmap');
const { machine, commit, arg } = require('./lib');

const BATCH = 4096;

function options() {
  return {
    lookups: Number(arg('--lookups', 1e7)),
    online: Number(arg('--online', 0.3)),
    uinBits: Number(arg('--uin-bits', 32)),
    runs: Number(arg('--runs', 5)),
    advice: arg('--advice', undefined),
    record: process.argv.includes('--record'),
  };
}

function benchDir() {
  return fs.statSync('/dev/shm', { throwIfNoEntry: false })?.isDirectory() ? '/dev/shm' : os.tmpdir();
}

/**
 * Fills the words of the file with random bits, each set with probability
 * k/256: m = digit ? m | r : m & r over the 8 binary digits of k/256, least
 * significant first, gives exactly that probability per bit.
 */
function fillOnline(file, wordCount, share) {
  const k = Math.round(share * 256);
  const digits = Array.from({ length: 8 }, (_, i) => (k >> (7 - i)) & 1); // digits[0] is the 1/2 digit
  const random = mulberry32(0x9e3779b9);
  const chunk = new Uint32Array(1 << 20);
  const fd = fs.openSync(file, 'r+');
  try {
    for (let word = 0; word < wordCount; word += chunk.length) {
      const n = Math.min(chunk.length, wordCount - word);
      for (let i = 0; i < n; i++) {
        let m = 0;
        for (let d = 7; d >= 0; d--) m = digits[d] ? m | random() : m & random();
        chunk[i] = m;
      }
      fs.writeSync(fd, chunk, 0, n * 4, 4096 + word * 4);
    }
  } finally {
    fs.closeSync(fd);
  }
  return k / 256;
}

function lookupLists(count, uinLimit) {
  const random = mulberry32(12345);
  const shuffled = new Uint32Array(count);
  for (let i = 0; i < count; i++) shuffled[i] = uinLimit === 2 ** 32 ? random() : random() % uinLimit;
  const sorted = shuffled.slice().sort();
  return { sorted, shuffled };
}

function byPartition(view, list) {
  const online = new Uint32Array(BATCH);
  const offline = new Uint32Array(BATCH);
  let found = 0;
  for (let i = 0; i < list.length; i += BATCH)
    found += view.partition(list.subarray(i, i + BATCH), online, offline).online;
  return found;
}

function byIsOnline(view, list) {
  let found = 0;
  for (let i = 0; i < list.length; i++) if (view.isOnline(list[i])) found++;
  return found;
}

/** Lookups per second of `fn` over `list`: every run, plus the online share it found. */
function measure(fn, view, list, runs) {
  const rates = [];
  let found = 0;
  for (let r = 0; r < runs; r++) {
    const started = process.hrtime.bigint();
    found = fn(view, list);
    rates.push(list.length / (Number(process.hrtime.bigint() - started) / 1e9));
  }
  const sorted = [...rates].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)], best: sorted[sorted.length - 1], share: found / list.length };
}

function shmemHugePages() {
  try {
    return (
      /\[(\w+)\]/.exec(fs.readFileSync('/sys/kernel/mm/transparent_hugepage/shmem_enabled', 'utf8'))?.[1] ?? 'unknown'
    );
  } catch {
    return 'unknown';
  }
}

const millions = (rate) => (rate / 1e6).toFixed(1);
const ms = (started) => (performance.now() - started).toFixed(0);

async function main() {
  const args = options();
  const uinLimit = 2 ** args.uinBits;
  const file = path.join(benchDir(), `herald-bench-bitmap-${process.pid}.bitmap`);
  const removeFile = () => fs.rmSync(file, { force: true });
  process.once('SIGINT', () => {
    removeFile();
    process.exit(130);
  });
  const setup = [];
  let writer;
  let reader;
  try {
    let started = performance.now();
    writer = SharedOnlineBitmap.openWriter(file, uinLimit);
    setup.push(
      `openWriter (create, posix_fallocate ${(fs.statSync(file).size / 2 ** 20).toFixed(0)} MiB): ${ms(started)} ms`,
    );
    started = performance.now();
    const share = fillOnline(file, Math.ceil(uinLimit / 32), args.online);
    setup.push(`fill ${share.toFixed(3)} online: ${ms(started)} ms`);
    const { sorted, shuffled } = lookupLists(args.lookups, uinLimit);

    started = performance.now();
    reader = SharedOnlineBitmap.openReader(file, uinLimit, args.advice === undefined ? {} : { advice: args.advice });
    setup.push(`openReader${args.advice ? ` (madvise ${args.advice})` : ''}: ${ms(started)} ms`);
    started = performance.now();
    byPartition(reader, shuffled); // a fresh mapping: this pass also faults the pages in
    setup.push(
      `first pass on the fresh mapping (random order, page faults included): ${millions(args.lookups / ((performance.now() - started) / 1000))} M lookups/s`,
    );

    const heapWords = new Uint32Array(Math.ceil(uinLimit / 32));
    const fd = fs.openSync(file, 'r');
    fs.readSync(fd, heapWords, 0, heapWords.byteLength, 4096);
    fs.closeSync(fd);
    const heap = new TypedArrayBitmap(uinLimit, heapWords);

    const rows = [];
    for (const [order, list] of [
      ['sorted', sorted],
      ['random', shuffled],
    ]) {
      for (const [method, fn] of [
        ['partition (4,096 per batch)', byPartition],
        ['isOnline', byIsOnline],
      ]) {
        rows.push({ order, method, bitmap: 'shared mapping (reader)', ...measure(fn, reader, list, args.runs) });
      }
      rows.push({
        order,
        method: 'partition (4,096 per batch)',
        bitmap: 'private heap copy (control)',
        ...measure(byPartition, heap, list, args.runs),
      });
    }

    const title = `### Online bitmap lookups (shared memory), one core — ${new Date().toISOString().slice(0, 10)}, commit ${commit()}`;
    const context =
      `Machine: ${machine()}; shmem transparent huge pages: ${shmemHugePages()}. ` +
      `Bitmap: 2^${args.uinBits} bits in ${path.dirname(file)}, ${args.online} online at random; ${args.lookups.toLocaleString('en-US')} random uins looked up, median of ${args.runs} runs. ` +
      `Command: \`node bench/bitmap.js${process.argv
        .slice(2)
        .filter((a) => a !== '--record')
        .map((a) => ' ' + a)
        .join('')}\`.`;
    const table = [
      '| list order | method | bitmap | M lookups/s (median) | best | online share found |',
      '|---|---|---|---:|---:|---:|',
      ...rows.map(
        (r) =>
          `| ${r.order} | ${r.method} | ${r.bitmap} | ${millions(r.median)} | ${millions(r.best)} | ${r.share.toFixed(3)} |`,
      ),
    ].join('\n');
    const section = `${title}\n\n${context}\n\n${table}\n\nSetup: ${setup.join('; ')}.\n`;
    console.log(section);
    if (args.record) fs.appendFileSync(path.join(__dirname, 'RESULTS.md'), '\n' + section);
  } finally {
    reader?.close();
    writer?.close();
    removeFile();
  }
}

module.exports = { fillOnline, benchDir };

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
