/**
 * bench/presence-offline.js at tiny sizes (no Kafka, a 2^20-bit bitmap, 2
 * readers): it runs, its own checks pass (every user's bit matches their last
 * event, every walked user's entries delivered, the readers count the same
 * bits) and it prints every table's rows. No timing is asserted: the rates are
 * for RESULTS.md, measured by hand.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DEFAULTS } from '@herald/core/config';

const SCRIPT = join(__dirname, '..', 'presence-offline.js');
const ARGS = [
  '--no-kafka',
  '--events',
  '2000',
  '--recipients',
  '3000',
  '--walks',
  '100',
  '--uin-bits',
  '20',
  '--readers',
  '2',
];

it('measures presence, offline appends, login walks and memory per host, and prints their rows', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [SCRIPT, ...ARGS], {
    cwd: join(__dirname, '..', '..'),
    timeout: 90_000,
  });

  const row = (start: string) => stdout.split('\n').find((line) => line.startsWith(start));
  expect(row('| LevelEventLog (embedded), live')).toMatch(/\| 2,000 \|.*\| 0 \|$/); // 0 bits wrong
  expect(row('| LevelEventLog, replay')).toMatch(/\| 2,000 \|.*\| 0 \|$/);
  expect(stdout).not.toContain('| Kafka');
  expect(row('| offline appends: recipients (1,000 users x 3 tasks) | 3,000 |')).toBeDefined();
  // The offline share of a default batch: the bench's online share is 0.3.
  const appendSize = Math.round(DEFAULTS.dispatcher.batchSize * 0.7).toLocaleString('en-US');
  expect(row(`| offline appends: batches of ${appendSize} (the offline share of a `)).toBeDefined();
  expect(row('| login walks')).toContain('| 100 users (300 entries delivered) |');
  expect(row('| presence writer')).toBeDefined();
  expect(stdout.split('\n').filter((line) => line.startsWith('| executor reader'))).toHaveLength(2);
  expect(row('| **sum, 3 processes** |')).toBeDefined();
  expect(stdout).toMatch(/The sum of the mappings' Pss is (0\.9\d|1\.0\d) x one bitmap/); // one copy, to the kB rounding of 32 pages
}, 120_000);
