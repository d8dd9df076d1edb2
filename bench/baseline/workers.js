/**
 * The baseline's BullMQ workers, in this process or in child processes. Both
 * kinds run the same Worker and processor (processBatch) and report to the
 * parent the same way: onCompleted(counts) per finished job, onFailed(error).
 *
 * In this process: `workers` Worker instances at `concurrency` each, sharing
 * one ioredis client for the processors' commands. In child processes
 * (`processes` > 0): each runs one Worker at `concurrency`, with its own
 * client and sink handle (appends of whole records to the same file), which
 * is how a Node user spreads the client-side work of ioredis over the cores.
 */
const { fork } = require('node:child_process');
const path = require('node:path');
const { Worker } = require('bullmq');
const { Redis } = require('ioredis');
const { FileDeliverySink } = require('@herald/executor');
const { baselineKeys } = require('./keys');
const { processBatch } = require('./process-batch');

/**
 * spec: { runId, connection, sinkDir, taskId, dailyCap, day, concurrency, workers, processes }
 * returns { ready: Promise, onCompleted(fn), onFailed(fn), close(): Promise<peak RSS of
 * the child processes in MiB, summed (0 for workers in this process)> }
 */
function startWorkers(spec) {
  const workers = spec.processes > 0 ? startChildren(spec) : startHere(spec, spec.workers);
  let closing;
  return { ...workers, close: () => (closing ??= workers.close()) };
}

function startHere(spec, count) {
  const keys = baselineKeys(spec.runId);
  const redis = new Redis(spec.connection);
  const sink = new FileDeliverySink(spec.sinkDir);
  const processor = (job) =>
    processBatch(redis, keys, sink, {
      taskId: spec.taskId,
      uins: job.data.uins,
      dailyCap: spec.dailyCap,
      day: spec.day,
    });
  const workers = [];
  for (let w = 0; w < count; w++) {
    workers.push(
      new Worker(keys.queueName, processor, {
        connection: spec.connection,
        prefix: keys.bullPrefix,
        concurrency: spec.concurrency,
      }),
    );
  }
  return {
    ready: Promise.all(workers.map((w) => w.waitUntilReady())),
    onCompleted: (fn) => workers.forEach((w) => w.on('completed', (_job, counts) => fn(counts))),
    onFailed: (fn) => {
      for (const w of workers) {
        w.on('failed', (job, error) => fn(new Error(`job ${job?.id} failed: ${error.message}`)));
        w.on('error', fn);
      }
    },
    async close() {
      await Promise.all(workers.map((w) => w.close()));
      await sink.close();
      await redis.quit();
      return 0;
    },
  };
}

function startChildren(spec) {
  const children = [];
  const completed = [];
  const failed = [];
  let childrenPeakRssMiB = 0;
  for (let p = 0; p < spec.processes; p++) {
    const child = fork(
      path.join(__dirname, 'worker-process.js'),
      [JSON.stringify({ ...spec, processes: 0, workers: 1 })],
      { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
    );
    child.on('message', (m) => {
      if (m.type === 'completed') completed.forEach((fn) => fn(m.counts));
      else if (m.type === 'failed') failed.forEach((fn) => fn(new Error(m.message)));
      else if (m.type === 'closed') childrenPeakRssMiB += m.peakRssMiB;
    });
    child.on('exit', (code) => {
      if (code !== 0) failed.forEach((fn) => fn(new Error(`worker process ${child.pid} exited with ${code}`)));
    });
    children.push(child);
  }
  const readyOf = (child) =>
    new Promise((resolve, reject) => {
      child.on('message', (m) => m.type === 'ready' && resolve());
      child.on('exit', (code) =>
        reject(new Error(`worker process ${child.pid} exited with ${code} before it was ready`)),
      );
    });
  return {
    ready: Promise.all(children.map(readyOf)),
    onCompleted: (fn) => completed.push(fn),
    onFailed: (fn) => failed.push(fn),
    async close() {
      await Promise.all(
        children.map((child) =>
          child.exitCode !== null
            ? undefined
            : new Promise((resolve) => {
                child.once('exit', resolve);
                child.send({ type: 'close' });
              }),
        ),
      );
      return childrenPeakRssMiB;
    },
  };
}

module.exports = { startWorkers, startHere };
