#!/usr/bin/env node
/**
 * Text/CSV recipient-list parse rate on one core (@herald/audience, compiled:
 * run `npx tsc -b` first). Generates a file of 10^7 random uins in [0, 2^32),
 * one per line (about 104 MB; `--format csv` writes `name,uin,email` records
 * with the uin in the named column instead), then measures, over `--runs`
 * runs each:
 *
 *   parse   TextListParser alone on the file read in 64 KiB chunks (what an
 *           HTTP body arrives as): lines/s and MB/s of text;
 *   import  ListRepository.importText end to end: parse, encode, write the
 *           binary list, fsync and rename.
 *
 * After one unmeasured warm-up parse, prints the best and median run of each
 * (wall time and this process's CPU time, which neighbours on a shared
 * machine disturb much less) and removes its files.
 *
 *   node bench/text-list.js [--lines 1e7] [--format lines|csv] [--runs 3] [--crlf]
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ListRepository, TextListParser } = require('@herald/audience');
const { mulberry32 } = require('@herald/core');
const { machine, commit, arg } = require('./lib');

const CHUNK = 64 * 1024;

function options() {
  return {
    lines: Number(arg('--lines', 1e7)),
    format: arg('--format', 'lines'),
    runs: Number(arg('--runs', 3)),
    crlf: process.argv.includes('--crlf'),
  };
}

/** Writes the input file in 1 MiB pieces; returns its size in bytes. */
function generate(file, { lines, format, crlf }) {
  const random = mulberry32(0x2545f491);
  const eol = crlf ? '\r\n' : '\n';
  const fd = fs.openSync(file, 'w');
  let bytes = 0;
  try {
    if (format === 'csv') bytes += fs.writeSync(fd, `name,uin,email${eol}`);
    let piece = '';
    for (let i = 0; i < lines; i++) {
      const uin = random();
      piece += format === 'csv' ? `user${i},${uin},u${i}@example.com${eol}` : `${uin}${eol}`;
      if (piece.length >= 1 << 20) {
        bytes += fs.writeSync(fd, piece);
        piece = '';
      }
    }
    bytes += fs.writeSync(fd, piece);
  } finally {
    fs.closeSync(fd);
  }
  return bytes;
}

/**
 * Wall time and CPU time (user + system) of this process. On a shared
 * machine the wall time depends on the neighbours; CPU time much less.
 */
function start() {
  const wall = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  return {
    stop() {
      const used = process.cpuUsage(cpu);
      return { seconds: Number(process.hrtime.bigint() - wall) / 1e9, cpuSeconds: (used.user + used.system) / 1e6 };
    },
  };
}

function parserOptions(format) {
  return format === 'csv' ? { uinLimit: 2 ** 32, format: 'csv', column: 'uin' } : { uinLimit: 2 ** 32 };
}

async function parseOnly(file, format) {
  const parser = new TextListParser(parserOptions(format));
  let uins = 0;
  const clock = start();
  for await (const chunk of fs.createReadStream(file, { highWaterMark: CHUNK })) uins += parser.push(chunk).length;
  uins += parser.end().length;
  return { ...clock.stop(), uins, report: parser.report };
}

async function importWhole(file, format, dir) {
  const lists = new ListRepository(dir);
  const clock = start();
  const { meta, report } = await lists.importText(fs.createReadStream(file, { highWaterMark: CHUNK }), {
    accountId: 'bench',
    maxBytes: Number.MAX_SAFE_INTEGER,
    ...parserOptions(format),
  });
  const elapsed = clock.stop();
  await lists.remove(meta.id);
  return { ...elapsed, uins: meta.count, report };
}

function summary(name, runs, lines, bytes) {
  const sorted = [...runs].sort((a, b) => a.seconds - b.seconds);
  const rate = (seconds) =>
    `${(lines / seconds / 1e6).toFixed(2)} M lines/s, ${(bytes / seconds / 1e6).toFixed(1)} MB/s`;
  const row = (label, run) =>
    `| ${name} | ${label} | ${run.seconds.toFixed(2)} s | ${rate(run.seconds)} | ${run.cpuSeconds.toFixed(2)} s | ${rate(run.cpuSeconds)} |`;
  return [row('best', sorted[0]), row('median', sorted[Math.floor(sorted.length / 2)])];
}

async function main() {
  const opts = options();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-text-'));
  const file = path.join(dir, `input.${opts.format === 'csv' ? 'csv' : 'txt'}`);
  try {
    const bytes = generate(file, opts);
    const lines = opts.lines;
    await parseOnly(file, opts.format); // warm-up: let the JIT settle before measuring
    const parses = [];
    const imports = [];
    for (let run = 0; run < opts.runs; run++) {
      const parsed = await parseOnly(file, opts.format);
      if (parsed.uins !== lines || parsed.report.bad.total !== 0)
        throw new Error(`parse run ${run}: ${parsed.uins} uins, ${parsed.report.bad.total} bad`);
      parses.push(parsed);
      const imported = await importWhole(file, opts.format, path.join(dir, 'lists'));
      if (imported.uins !== lines) throw new Error(`import run ${run}: ${imported.uins} uins`);
      imports.push(imported);
    }
    console.log(
      `text-list: ${lines.toExponential(0)} ${opts.format}${opts.crlf ? ' (CRLF)' : ''}, ${(bytes / 1e6).toFixed(1)} MB, ${opts.runs} runs`,
    );
    console.log(`${machine()}, commit ${commit()}`);
    console.log('| stage | run | wall | per wall second | CPU | per CPU second |');
    console.log('|---|---|---|---|---|---|');
    for (const line of [...summary('parse', parses, lines, bytes), ...summary('import', imports, lines, bytes)])
      console.log(line);
    console.log(
      `heap after: ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MiB used, rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
