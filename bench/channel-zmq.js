#!/usr/bin/env node
/**
 * The ZeroMQ push gateway channel alone: the highest recipients/s
 * ZmqDeliveryGateway (@herald/executor, compiled) sustains against the
 * reference push service, ZmqPushReceiver (@herald/testing), over tcp on
 * 127.0.0.1 with CURVE (docs/delivery.md, "The ZeroMQ push gateway"). The
 * receiver runs in a worker thread (its own event loop, as a separate
 * service would be) and accepts every request; the main thread keeps
 * `--inflight` batches of `--batch` uins in flight for `--seconds`, the
 * gateway's own bound set to the same. Not the pacing (PacedDeliveryGateway
 * caps a channel at its configured maxRate) and not the tiers: the channel's
 * ceiling, which a broadcast's send rate cannot exceed. The receiver decodes
 * every uin into a JS array (it is a reference, not a tuned service), so its
 * cost is part of the figure.
 *
 *   node bench/channel-zmq.js [--batch 4096] [--inflight 64] [--seconds 10] [--no-curve] [--record]
 */
const fs = require('node:fs');
const path = require('node:path');
const { Worker, isMainThread, parentPort, workerData } = require('node:worker_threads');
const { machine, commit, arg, fmt, loadAverage } = require('./lib');

if (isMainThread)
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
else
  serveInWorker().catch((error) => {
    console.error(error);
    process.exit(1);
  });

/** The worker: the reference receiver, counting accepted recipients and dropping what it records. */
async function serveInWorker() {
  const { ZmqPushReceiver } = require('@herald/testing');
  const receiver = await ZmqPushReceiver.start(workerData.curve ? { curve: workerData.curve } : {});
  let recipients = 0;
  receiver.answerBy((request) => {
    recipients += request.uins.length;
    return { kind: 'accept' };
  });
  // A reference receiver keeps every request; a bench of millions must not.
  const trim = setInterval(() => {
    receiver.requests.length = 0;
    receiver.accepted.length = 0;
  }, 50);
  parentPort.on('message', async (message) => {
    if (message !== 'stop') return;
    clearInterval(trim);
    await receiver.stop();
    parentPort.postMessage({ recipients });
  });
  parentPort.postMessage({ endpoint: receiver.endpoint });
}

function options() {
  return {
    batch: Number(arg('--batch', 4096)),
    inflight: Number(arg('--inflight', 64)),
    seconds: Number(arg('--seconds', 10)),
    curve: !process.argv.includes('--no-curve'),
    record: process.argv.includes('--record'),
  };
}

async function main() {
  const o = options();
  const zmq = require('zeromq');
  const { ZmqDeliveryGateway } = require('@herald/executor');
  const server = o.curve ? zmq.curveKeyPair() : undefined;
  const worker = new Worker(__filename, { workerData: { curve: server } });
  const next = () => new Promise((resolve) => worker.once('message', resolve));
  const { endpoint } = await next();
  const client = zmq.curveKeyPair();
  const gateway = new ZmqDeliveryGateway({
    endpoint,
    curve: server ? { serverPublicKey: server.publicKey, ...client } : false,
    timeoutMs: 10_000,
    maxInFlight: o.inflight,
  });
  const load = [loadAverage()];
  const uins = Uint32Array.from({ length: o.batch }, (_, i) => 1_000_000 + i * 7);
  const content = { title: 'Greeting', body: 'Hello from Herald' };
  let accepted = 0;
  let failed = 0;
  let taskId = 0;
  // A short warm-up (connection, CURVE handshake, JIT), not counted.
  await gateway.deliver({ taskId: 0, uins, content, atLogin: false });
  const started = process.hrtime.bigint();
  const until = Date.now() + o.seconds * 1000;
  const sender = async () => {
    while (Date.now() < until) {
      try {
        await gateway.deliver({ taskId: ++taskId, uins, content, atLogin: false });
        accepted += uins.length;
      } catch {
        failed += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: o.inflight }, sender));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await gateway.close();
  worker.postMessage('stop');
  const { recipients } = await next();
  await worker.terminate();
  load.push(loadAverage());

  const rate = accepted / seconds;
  const section = [
    `### ZeroMQ push gateway channel — ${new Date().toISOString().slice(0, 10)}, commit ${commit()}`,
    '',
    `Machine: \`${machine()}\`. 1-minute load average ${load.map((l) => l.toFixed(2)).join(' before, ')} after; the machine was shared with other sessions' builds and tests, so this is a lower bound. Command: \`node bench/channel-zmq.js --batch ${o.batch} --inflight ${o.inflight} --seconds ${o.seconds}${o.curve ? '' : ' --no-curve'}\`.`,
    '',
    '| what | figure |',
    '|---|---:|',
    `| transport | tcp 127.0.0.1, ${o.curve ? 'CURVE' : 'no CURVE'}; receiver in a worker thread |`,
    `| batches of | ${fmt(o.batch)} uins, ${fmt(o.inflight)} in flight |`,
    `| recipients accepted | ${fmt(accepted)} in ${fmt(seconds, 1)} s (receiver counted ${fmt(recipients)}, warm-up included) |`,
    `| failed requests | ${fmt(failed)} |`,
    `| **recipients/s** | **${fmt(rate)}** (${fmt(rate / o.batch)} batches/s) |`,
    '',
  ].join('\n');
  process.stdout.write(section + '\n');
  if (o.record) fs.appendFileSync(path.join(__dirname, 'RESULTS.md'), '\n' + section);
}
