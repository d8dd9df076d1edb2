#!/usr/bin/env node
/**
 * The capacity model (docs/capacity.md): how many hosts of each tier a
 * broadcast of 10^9 recipients needs to finish in 15 minutes, and what
 * saturates first, from per-host rates measured on this machine, now:
 *
 *   pre-processing, sending   one embedded fan-out (bench/embedded-fanout.js) of
 *                             --size recipients: its pre-processing and sending
 *                             phases (every tier in one process on this host)
 *   offline appends, walks    bench/presence-offline.js's offline step
 *                             (LevelOfflineStore appends, login walks)
 *   presence events           bench/presence-offline.js's presence step: the
 *                             agent replaying the embedded log into a 2^32-bit
 *                             bitmap, and (unless --no-kafka) live on the Kafka
 *                             mock; the slower of the two is the model's input
 *   delivery channel          the file sink (FileDeliverySink), online batches
 *                             of 4,096 x the online share
 *
 * The arithmetic is bench/capacity-model.js. `--inputs <file>` reruns it on
 * rates saved by an earlier `--save <file>` instead of measuring.
 *
 *   node bench/capacity.js [--size 1e7] [--online 0.3] [--login-share 0.1]
 *       [--cores 2,16] [--headroom 0.7] [--no-kafka] [--save f] [--inputs f] [--record]
 *
 * About 1-2 minutes on the 2-core machine.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { DEFAULTS } = require('@herald/core/config');
const { FileDeliverySink } = require('@herald/executor');
const { makeTempDir } = require('@herald/testing');
const { runEmbeddedFanout } = require('./embedded-fanout');
const { runPresenceOffline } = require('./presence-offline');
const { capacityPlan, SCENARIO_DEFAULTS } = require('./capacity-model');
const { machine, commit, arg, fmt, benchAudience } = require('./lib');

const log = (line) => process.stderr.write(`${line}\n`);
/** An executor hands its channel the online part of one batch: dispatcher.batchSize's default x the online share. */
const BATCH = DEFAULTS.dispatcher.batchSize;

/** The file sink taking `count` online recipients in batches of BATCH x online, as an executor hands them over. */
async function measureDelivery(count, online) {
  const dir = await makeTempDir('herald-bench-sink-');
  const sink = new FileDeliverySink(dir.path);
  try {
    const size = Math.max(1, Math.round(BATCH * online));
    const uins = new Uint32Array(size).map((_, i) => i * 7 + 1);
    const t0 = performance.now();
    let sent = 0;
    while (sent < count) {
      await sink.deliver({ taskId: 1, uins, content: { body: 'capacity' }, atLogin: false });
      sent += size;
    }
    return { recipients: sent, s: (performance.now() - t0) / 1000 };
  } finally {
    await sink.close();
    await dir.remove();
  }
}

/** Every rate the model needs, measured now; each with what measured it. */
async function measure({ size, online, kafka }) {
  const load = () => os.loadavg()[0];
  const sources = {};
  log(`fan-out of ${fmt(size)} recipients (embedded profile) ...`);
  const fanLoad = load();
  const fan = await runEmbeddedFanout(benchAudience(size, online));
  const kept = fan.delivered + fan.offline;
  sources.preprocessPerS = `embedded fan-out of ${fmt(size)}: ${fmt(size)} recipients pre-processed in ${fmt(fan.preprocessS, 2)} s (load ${fmt(fanLoad, 2)})`;
  sources.sendPerS = `same run: ${fmt(kept)} kept recipients sent in ${fmt(fan.sendS, 2)} s (${fmt(fan.delivered)} delivered, ${fmt(fan.offline)} offline)`;

  log('offline appends, login walks, presence events ...');
  const poLoad = load();
  const po = await runPresenceOffline({
    steps: ['presence', 'offline'],
    events: 2e5,
    kafkaEvents: kafka ? 1e5 : 0,
    recipients: 1e6,
    tasks: 3,
    walks: 5000,
    online,
  });
  const { appends, walks } = po.offline.value;
  sources.offlinePerS = `${fmt(appends.recipients)} offline recipients appended in ${fmt(appends.s, 2)} s (${fmt(appends.batches)} appends; load ${fmt(poLoad, 2)})`;
  sources.walkPerS = `${fmt(walks.users)} login walks of ${walks.entries} entries in ${fmt(walks.s, 2)} s`;
  const presenceRows = po.presence.value.map((r) => ({ ...r, perS: r.events / r.appliedS }));
  const replay = presenceRows.find((r) => r.bus.includes('replay'));
  const onKafka = presenceRows.find((r) => r.bus.startsWith('Kafka'));
  const presence = onKafka && onKafka.perS < replay.perS ? onKafka : replay;
  sources.presencePerS = presenceRows
    .filter((r) => r === replay || r === onKafka)
    .map(
      (r) =>
        `${r === presence ? '**' : ''}${r.bus.split(':')[0]}: ${fmt(r.events)} events in ${fmt(r.appliedS, 2)} s${r === presence ? '** (the slower, used)' : ''}`,
    )
    .join('; ');

  log('delivery channel (file sink) ...');
  const sinkLoad = load();
  const sink = await measureDelivery(2e6, online);
  sources.deliverPerS = `file sink: ${fmt(sink.recipients)} online recipients in batches of ${fmt(Math.round(BATCH * online))} in ${fmt(sink.s, 2)} s (load ${fmt(sinkLoad, 2)})`;

  return {
    rates: {
      cores: os.cpus().length,
      preprocessPerS: size / fan.preprocessS,
      sendPerS: kept / fan.sendS,
      offlinePerS: appends.recipients / appends.s,
      deliverPerS: sink.recipients / sink.s,
      walkPerS: walks.users / walks.s,
      presencePerS: presence.perS,
    },
    sources,
    measuredAt: { date: new Date().toISOString(), commit: commit(), machine: machine(), uptime: uptime() },
  };
}

function uptime() {
  return os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');
}

const RATE_ROWS = [
  ['preprocessPerS', 'pre-processing, one task (recipients/s)'],
  ['sendPerS', 'sending pipeline, one host (recipients/s)'],
  ['offlinePerS', 'offline appends (recipients/s)'],
  ['deliverPerS', 'delivery channel: the file sink (online recipients/s)'],
  ['walkPerS', 'login walks (users/s)'],
  ['presencePerS', 'presence events applied by one agent (events/s)'],
];

function ratesTable({ rates, sources }) {
  return [
    `| measured input (${rates.cores}-core host) | rate | how |`,
    '|---|---:|---|',
    ...RATE_ROWS.map(([key, label]) => `| ${label} | ${fmt(rates[key])} | ${sources[key]} |`),
  ].join('\n');
}

function planTable(plans) {
  const n = (v) => (v === undefined ? '-' : Number.isFinite(v) ? fmt(v) : 'never');
  const hosts = (v) => `${n(v)} host${v === 1 ? '' : 's'}`;
  const header = plans.map((p) => `${p.scenario.cores}-core hosts`);
  const rows = plans[0].stages.map((s, i) => {
    const cells = plans.map((p) => {
      const st = p.stages[i];
      return st.scales ? hosts(st.hostsAlone) : `${fmt(st.utilisationOfOne * 100, 1)}% of one`;
    });
    return `| ${s.stage} | ${s.tier} | ${fmt(s.demandPerS)} | ${cells.join(' | ')} |`;
  });
  return [
    `| stage | tier | demand (/s) | ${header.join(' | ')} |`,
    `|---|---|---:|${header.map(() => '---:').join('|')}|`,
    ...rows,
    `| **the broadcast alone: executor hosts for sending** | executor | | ${plans.map((p) => `**${hosts(p.sendingHosts)}**`).join(' | ')} |`,
    `| **executor hosts for sending + the login walks** | executor | | ${plans.map((p) => `**${hosts(p.executorHosts)}**`).join(' | ')} |`,
    `| pre-processing time of the 10^9 list, then the sending window | dispatcher | | ${plans.map((p) => `${fmt(p.preprocessS)} s, ${fmt(Math.max(0, p.sendWindowS))} s`).join(' | ')} |`,
    `| checkpoints and reports (batches of ${fmt(plans[0].scenario.batchSize)}) | scheduler, controller | ${fmt(plans[0].batchesPerS)} | ${plans.map(() => 'not measured here').join(' | ')} |`,
    `| saturates first | | | ${plans.map((p) => p.saturatesFirst).join(' | ')} |`,
    `| the broadcast fits in ${fmt(plans[0].scenario.seconds)} s | | | ${plans.map((p) => (p.broadcastFits ? 'yes' : '**no**')).join(' | ')} |`,
    `| logins/s the presence agents keep up with (${plans[0].scenario.eventsPerLogin} events each) | presence | ${fmt(plans[0].loginsPerS)} | ${plans.map((p) => `${fmt(p.maxLoginsPerS)}${p.loginsFit ? '' : ' (**short**)'}`).join(' | ')} |`,
  ].join('\n');
}

/** `--rate key=value` (repeatable): a rate given instead of measured (e.g. a real push gateway's), marked so in the table. */
function givenRates(measured, argv) {
  argv.forEach((a, i) => {
    if (a !== '--rate') return;
    const [key, value] = String(argv[i + 1]).split('=');
    if (!RATE_ROWS.some(([k]) => k === key) || !(Number(value) > 0))
      throw new Error(`--rate ${argv[i + 1]}: want one of ${RATE_ROWS.map(([k]) => k).join(', ')}=<positive number>`);
    measured.rates[key] = Number(value);
    measured.sources[key] = '**given with --rate, not measured**';
  });
}

/** The command line as recorded: without --record, and without --save and its file (a scratch copy, not an input). */
function shownArgs(argv) {
  return argv
    .filter((a, i) => a !== '--record' && a !== '--save' && argv[i - 1] !== '--save')
    .map((a) => ` ${a}`)
    .join('');
}

function numberList(name, fallback) {
  return arg(name, fallback).split(',').map(Number);
}

async function main() {
  const argv = process.argv.slice(2);
  const known = [
    '--size',
    '--online',
    '--login-share',
    '--cores',
    '--headroom',
    '--rate',
    '--no-kafka',
    '--save',
    '--inputs',
    '--record',
  ];
  for (const a of argv) if (a.startsWith('--') && !known.includes(a)) throw new Error(`unknown argument ${a}`);
  const online = Number(arg('--online', String(SCENARIO_DEFAULTS.online)));
  const inputsFile = arg('--inputs', undefined);
  const measured = inputsFile
    ? JSON.parse(fs.readFileSync(inputsFile, 'utf8'))
    : await measure({ size: Number(arg('--size', '1e7')), online, kafka: !argv.includes('--no-kafka') });
  givenRates(measured, argv);
  const saveFile = arg('--save', undefined);
  if (saveFile) fs.writeFileSync(saveFile, JSON.stringify(measured, null, 2));
  const plans = numberList('--cores', `${measured.rates.cores},16`).map((cores) =>
    capacityPlan(measured.rates, {
      online,
      cores,
      loginShare: Number(arg('--login-share', String(SCENARIO_DEFAULTS.loginShare))),
      headroom: Number(arg('--headroom', String(SCENARIO_DEFAULTS.headroom))),
    }),
  );
  const s = plans[0].scenario;
  const at = measured.measuredAt;
  const section = [
    `### Capacity model: 10^9 recipients in 15 minutes — ${at.date.slice(0, 10)}, commit ${at.commit}`,
    '',
    `Machine: ${at.machine}. \`uptime\` load average at the end of the measurements: ${at.uptime} (1, 5, 15 minutes). Command: \`node bench/capacity.js${shownArgs(argv)}\`. Model: bench/capacity-model.js, docs/capacity.md.`,
    '',
    ratesTable(measured),
    '',
    `Scenario: ${fmt(s.recipients)} recipients in ${fmt(s.seconds)} s, online share ${s.online}; ${fmt(s.loginShare * 100)}% of the offline recipients log in during the broadcast (${fmt(plans[0].loginsPerS)} logins/s, ${s.eventsPerLogin} presence events each); the plan uses ${fmt(s.headroom * 100)}% of each host's rate; on a host of C cores the executors' stages run at C / ${measured.rates.cores} x the measured host's rates, one task's pre-processing and a presence agent at 1 x (assumptions, not measured: docs/capacity.md). A stage that scales shows the hosts it alone needs; one that does not (one task's pre-processing, every agent applying every presence event) shows the share of one host it takes.`,
    '',
    planTable(plans),
    '',
  ].join('\n');
  process.stdout.write(section + '\n');
  if (argv.includes('--record')) fs.appendFileSync(path.join(__dirname, 'RESULTS.md'), `\n${section}`);
}

if (require.main === module) {
  main()
    .catch((error) => {
      process.stderr.write(`capacity: ${error.stack ?? error}\n`);
      process.exitCode = 1;
    })
    // A stopped Kafka client can leave a socket in its close timeout: the run is done.
    .finally(() => setTimeout(() => process.exit(), 1000).unref());
}

module.exports = { measure };
