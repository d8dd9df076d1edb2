#!/usr/bin/env node
/**
 * What the MySQL reply watchdog (store-mysql reply-watchdog.ts,
 * `mysql.replyTimeoutMs`) costs per request: the same small statements run on
 * a pool as store-mysql opens it (every request arms a timer, every answer
 * disarms it) and on a plain mysql2 pool with the same connection options
 * (no watchdog), alternately, round after round, in one process on the
 * machine's shared MariaDB. Prints, per pool and round, requests per second
 * and this process's CPU microseconds per request (user + system: less
 * sensitive to a loaded machine than wall time), then the medians.
 *
 *   node bench/mysql-reply-watchdog.js [--requests 20000] [--rounds 5] [--concurrency 4]
 */
const path = require('node:path');
const { createPool } = require('mysql2/promise');
const { arg, commit, loadAverage, machine } = require('./lib');

const dist = (file) => path.join(__dirname, '..', 'packages', 'store-mysql', 'dist', file);
const { openPool } = require(dist('pool.js'));
const { connectionOptions, parseMySqlUrl } = require(dist('connection.js'));

const URL_ = process.env.HERALD_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';
const DATABASE = 'mysql'; // every server has it; only `SELECT ?` runs
const requests = Number(arg('--requests', '20000'));
const rounds = Number(arg('--rounds', '5'));
const concurrency = Number(arg('--concurrency', '4'));

/** Runs `requests` prepared `SELECT ?` on `pool`, `concurrency` at a time; requests/s and CPU µs per request. */
async function measure(pool) {
  let next = 0;
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests) await pool.execute('SELECT ?', [next++]);
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const used = process.cpuUsage(cpu);
  return { perS: requests / seconds, cpuUs: (used.user + used.system) / requests };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

(async () => {
  const options = { url: URL_, database: DATABASE, poolSize: concurrency };
  const plain = createPool({
    ...connectionOptions(parseMySqlUrl(URL_), DATABASE),
    connectionLimit: concurrency,
    maxIdle: concurrency,
  });
  const watched = await openPool(options, false);
  console.log(`${new Date().toISOString()} commit ${commit()} ${machine()} load ${loadAverage().toFixed(1)}`);
  console.log(`requests ${requests} x ${rounds} rounds, concurrency ${concurrency}`);
  await measure(plain); // warm both: connections open, statements prepared
  await measure(watched);
  const results = { plain: [], watched: [] };
  for (let round = 1; round <= rounds; round++) {
    // Alternate which goes first, so a load change does not favour one side.
    const order = round % 2 === 1 ? ['plain', 'watched'] : ['watched', 'plain'];
    for (const name of order) {
      const r = await measure(name === 'plain' ? plain : watched);
      results[name].push(r);
      console.log(
        `round ${round} ${name.padEnd(7)} ${r.perS.toFixed(0)} requests/s, ${r.cpuUs.toFixed(1)} µs CPU/request, load ${loadAverage().toFixed(1)}`,
      );
    }
  }
  for (const name of ['plain', 'watched'])
    console.log(
      `median ${name.padEnd(7)} ${median(results[name].map((r) => r.perS)).toFixed(0)} requests/s, ${median(results[name].map((r) => r.cpuUs)).toFixed(1)} µs CPU/request`,
    );
  await plain.end();
  await watched.end();
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
