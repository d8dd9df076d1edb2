/**
 * Before any test: build every package (tsc -b: incremental, quick when
 * nothing changed), so tests that run the compiled `herald` command never see
 * a stale build; then start the servers the integration suites talk to, on
 * 127.0.0.1 only, and tell the test workers where they are:
 *
 *   HERALD_TEST_MYSQL_URL      the machine's MariaDB (started if it is down)
 *   HERALD_TEST_ZK             a standalone ZooKeeper of this run
 *   HERALD_TEST_KAFKA_BROKERS  librdkafka's mock cluster (via kcat) of this run
 *
 * A variable already set points at a server someone else runs; it is used as
 * it is. jest.global-teardown.js stops what was started here.
 */
const { execFileSync } = require('node:child_process');

/** Fails the run with a clear message instead of hanging when a server never comes up. */
function within(ms, what, promise) {
  let timer;
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`test services: ${what} not ready within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

module.exports = async () => {
  // HERALD_SKIP_BUILD=1 skips the build (for work on one package while another does not compile yet).
  if (process.env.HERALD_SKIP_BUILD !== '1') {
    // The shared-bitmap addon too: a checkout updated without `npm install` would lack it.
    execFileSync(
      process.execPath,
      [require.resolve('./packages/shared-bitmap/scripts/build-native.js'), '--if-stale'],
      { cwd: __dirname, stdio: 'inherit' },
    );
    // Compiled files of moved or deleted sources would shadow their replacements (scripts/prune-stale-dist.js).
    execFileSync(process.execPath, [require.resolve('./scripts/prune-stale-dist.js')], {
      cwd: __dirname,
      stdio: 'inherit',
    });
    execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-b'], { cwd: __dirname, stdio: 'inherit' });
  }
  const { TestZooKeeper, TestKafka, ensureSharedMariaDb } = require('./packages/testing/dist/services');
  const started = [];
  process.env.HERALD_TEST_MYSQL_URL = await within(60_000, 'MariaDB', ensureSharedMariaDb());
  if (!process.env.HERALD_TEST_ZK) {
    const zk = await within(60_000, 'ZooKeeper', TestZooKeeper.start());
    started.push(() => zk.destroy());
    process.env.HERALD_TEST_ZK = zk.connectionString;
  }
  if (!process.env.HERALD_TEST_KAFKA_BROKERS) {
    const kafka = await within(60_000, 'the kcat mock Kafka cluster', TestKafka.start());
    started.push(() => kafka.stop());
    process.env.HERALD_TEST_KAFKA_BROKERS = kafka.brokers.join(',');
  }
  globalThis.__heraldTestServices = started;
};
