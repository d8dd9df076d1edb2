/**
 * A baseline worker process (bench/baseline/workers.js forks it): one BullMQ
 * Worker running processBatch, reporting each finished job's counts to the
 * parent over IPC; closes, reports its peak RSS and exits when the parent says so.
 */
const { startHere } = require('./workers');

const spec = JSON.parse(process.argv[2]);
const workers = startHere(spec, 1);
workers.onCompleted((counts) => process.send({ type: 'completed', counts }));
workers.onFailed((error) => process.send({ type: 'failed', message: error.message }));
workers.ready.then(
  () => process.send({ type: 'ready' }),
  (error) => {
    process.stderr.write(`baseline worker: ${error.stack ?? error}\n`);
    process.exit(1);
  },
);
process.on('message', async (m) => {
  if (m.type !== 'close') return;
  await workers.close();
  // Exit once the report is sent: the work is closed; do not wait on any lingering handle.
  process.send({ type: 'closed', peakRssMiB: process.resourceUsage().maxRSS / 1024 }, () => process.exit(0));
});
