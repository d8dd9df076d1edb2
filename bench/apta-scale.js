#!/usr/bin/env node
/**
 * APTA at scale, simulated: core's pure membership machine on a simulated
 * network and clock (bench/apta-network.js), so 200 members run in seconds of
 * wall time and a seed fixes every run. Measures, with the default timers
 * (hello 1 s, dead interval 4 s, silence 12 s):
 *
 *   - time to converge (every running member WORKING, all on the same,
 *     complete ring) from a cold start (members started over one Hello
 *     interval), after one member is killed, after it restarts, when a 100/100
 *     partition splits the cluster and after it heals; then whether the
 *     cluster holds still for a dead interval (no member changes state);
 *   - the allocation ring (allocateTasks, APTA_VNODES virtual nodes by
 *     default, and the other counts of --vnodes): tasks per member over
 *     --tasks task ids (max/mean, min/mean), and the share of tasks that move
 *     when one member joins or leaves against the ideal 1/n.
 *
 * Goals (docs/apta.md): a kill converges within 2 x (dead interval + silence
 * period); imbalance under 1.10 with the default virtual nodes.
 *
 *   node bench/apta-scale.js                      # 200 members, 10^6 tasks
 *   node bench/apta-scale.js --members 50 --seed 7 --vnodes 160,1000 --record
 */
const { appendFile } = require('node:fs/promises');
const path = require('node:path');
const { APTA_VNODES, allocateTasks, compileAptaConfig } = require('@herald/core/apta');
const { seededRandom } = require('@herald/core');
const { SimulatedNetwork } = require('./apta-network');

const DEFAULTS = {
  members: 200,
  tasks: 1e6,
  vnodes: [APTA_VNODES, 500, 1000, 2000, 4000],
  seed: 1,
  latencyMs: 5,
  jitterMs: 5,
  steps: ['membership', 'ring'],
  record: false,
};

const memberIds = (n) => Array.from({ length: n }, (_, i) => `scheduler-${String(i + 1).padStart(3, '0')}`);

/**
 * The membership scenarios, one after another on one cluster. Each returns
 * `tookMs` (simulated, undefined if not converged within `limitMs`), whether
 * it then held still for a dead interval, and the steps and messages it cost.
 */
function simulateMembership({ members, seed, latencyMs, jitterMs, progress = () => {} }) {
  const config = compileAptaConfig();
  const net = new SimulatedNetwork({ config, latencyMs, jitterMs, seed });
  const random = seededRandom(seed + 1);
  const ids = memberIds(members);
  const limitMs = 10 * (config.deadIntervalMs + config.silencePeriodMs);
  const rows = [];

  const measure = (scenario, from, act, ...groups) => {
    const [steps, messages, wall] = [net.steps, net.messages, process.hrtime.bigint()];
    act();
    net.expect(...groups);
    const at = net.runUntil(() => net.converged(), from + limitMs);
    let held = false;
    if (at !== undefined) {
      net.resetChanges();
      net.runTo(at + config.deadIntervalMs);
      held = net.changes === 0 && net.converged();
    }
    const wallMs = Number(process.hrtime.bigint() - wall) / 1e6;
    rows.push({
      scenario,
      tookMs: at === undefined ? undefined : at - from,
      held,
      steps: net.steps - steps,
      messages: net.messages - messages,
      wallMs,
    });
    progress(`${scenario}: ${seconds(rows[rows.length - 1].tookMs)} simulated, ${(wallMs / 1000).toFixed(0)} s wall`);
  };

  measure(
    'cold start',
    0,
    () => {
      for (const id of ids) net.start(id, Math.floor(random() * config.helloIntervalMs));
    },
    ids,
  );

  const victim = ids[Math.floor(random() * ids.length)];
  const rest = ids.filter((id) => id !== victim);
  measure('one member killed', net.now, () => net.kill(victim), rest);
  measure('the killed member restarted', net.now, () => net.start(victim), ids);

  const [a, b] = [ids.slice(0, Math.floor(members / 2)), ids.slice(Math.floor(members / 2))];
  measure(`partition ${a.length}/${b.length}: each side alone`, net.now, () => net.partition(a, b), a, b);
  measure(`partition ${a.length}/${b.length} healed`, net.now, () => net.heal(), ids);
  return { config, rows, killGoalMs: 2 * (config.deadIntervalMs + config.silencePeriodMs) };
}

/** Owner index of each task id 1..tasks on a ring, and tasks per member. */
function ownership(ring, members, tasks) {
  const index = new Map(members.map((id, i) => [id, i]));
  const owners = new Uint16Array(tasks);
  const counts = new Array(members.length).fill(0);
  for (let t = 0; t < tasks; t++) {
    const owner = index.get(ring.ownerOf(t + 1));
    owners[t] = owner;
    counts[owner]++;
  }
  return { owners, counts };
}

/**
 * One virtual-node count: balance over `tasks` task ids, and the tasks that
 * move when one member joins (a new id) or leaves (the seeded victim), with
 * the moves that did not involve that member (consistent hashing: none).
 */
function measureRing({ members, tasks, vnodes, seed }) {
  const ids = memberIds(members);
  const { owners, counts } = ownership(allocateTasks(ids, vnodes), ids, tasks);
  const mean = tasks / members;
  const joiner = `scheduler-${String(members + 1).padStart(3, '0')}`;
  const joined = allocateTasks([...ids, joiner], vnodes);
  const leaver = ids[Math.floor(seededRandom(seed + 2)() * ids.length)];
  const left = allocateTasks(
    ids.filter((id) => id !== leaver),
    vnodes,
  );
  let [joinMoves, joinStray, leaveMoves, leaveStray] = [0, 0, 0, 0];
  for (let t = 0; t < tasks; t++) {
    const before = ids[owners[t]];
    const afterJoin = joined.ownerOf(t + 1);
    if (afterJoin !== before) [joinMoves, joinStray] = [joinMoves + 1, joinStray + (afterJoin === joiner ? 0 : 1)];
    const afterLeave = left.ownerOf(t + 1);
    if (afterLeave !== before) [leaveMoves, leaveStray] = [leaveMoves + 1, leaveStray + (before === leaver ? 0 : 1)];
  }
  return {
    vnodes,
    maxOverMean: Math.max(...counts) / mean,
    minOverMean: Math.min(...counts) / mean,
    joinShare: joinMoves / tasks,
    leaveShare: leaveMoves / tasks,
    strayMoves: joinStray + leaveStray,
  };
}

const seconds = (ms) => (ms === undefined ? 'not converged' : `${(ms / 1000).toFixed(2)} s`);
const pct = (x) => `${(100 * x).toFixed(3)}%`;

function formatMembership(args, { config, rows, killGoalMs }) {
  const row = (r) => {
    const goal =
      r.scenario === 'one member killed'
        ? `<= ${seconds(killGoalMs)}: ${r.tookMs !== undefined && r.tookMs <= killGoalMs ? 'met' : 'MISSED'}`
        : '-';
    return `| ${r.scenario} | ${seconds(r.tookMs)} | ${goal} | ${r.held ? 'yes' : 'NO'} | ${r.steps.toLocaleString('en-US')} | ${r.messages.toLocaleString('en-US')} | ${(r.wallMs / 1000).toFixed(1)} |`;
  };
  return [
    `Timers: hello ${config.helloIntervalMs} ms, dead interval ${config.deadIntervalMs} ms, silence ${config.silencePeriodMs} ms (the defaults). ` +
      `${args.members} members started over one Hello interval; messages take ${args.latencyMs} ms + [0, ${args.jitterMs}) ms, none lost; seed ${args.seed}. ` +
      'Times are simulated; "held" = no member changed state in the dead interval after; messages include the dead interval held.',
    '',
    '| scenario | converged after | goal | held | steps | messages | wall (s) |',
    '|---|---:|---|---|---:|---:|---:|',
    ...rows.map(row),
    '',
  ];
}

function formatRings(args, rings) {
  const byDefault = rings.find((r) => r.vnodes === APTA_VNODES);
  const meeting = rings.filter((r) => r.maxOverMean < 1.1).map((r) => r.vnodes);
  const verdict =
    byDefault === undefined
      ? []
      : [
          `Imbalance goal (< 1.10 with the default ${APTA_VNODES} virtual nodes): ${byDefault.maxOverMean < 1.1 ? 'met' : `MISSED (${byDefault.maxOverMean.toFixed(3)})`}` +
            (meeting.length > 0
              ? `; met here with ${meeting.join(', ')} virtual nodes.`
              : '; met by none of the counts measured.'),
          '',
        ];
  return [
    `Allocation ring over ${args.tasks.toLocaleString('en-US')} task ids (1..${args.tasks.toLocaleString('en-US')}), ${args.members} members; ideal moves: join 1/${args.members + 1} = ${pct(1 / (args.members + 1))}, leave 1/${args.members} = ${pct(1 / args.members)}.`,
    '',
    '| virtual nodes | max/mean tasks | min/mean tasks | moved on one join | moved on one leave | moves not to/from that member |',
    '|---:|---:|---:|---:|---:|---:|',
    ...rings.map(
      (r) =>
        `| ${r.vnodes}${r.vnodes === APTA_VNODES ? ' (default)' : ''} | ${r.maxOverMean.toFixed(3)} | ${r.minOverMean.toFixed(3)} | ${pct(r.joinShare)} | ${pct(r.leaveShare)} | ${r.strayMoves} |`,
    ),
    '',
    ...verdict,
  ];
}

function parseArgs(argv) {
  const args = { ...DEFAULTS };
  for (let i = 0; i < argv.length; i++) {
    const next = () => argv[++i];
    if (argv[i] === '--members') args.members = Number(next());
    else if (argv[i] === '--tasks') args.tasks = Number(next());
    else if (argv[i] === '--vnodes') args.vnodes = next().split(',').map(Number);
    else if (argv[i] === '--seed') args.seed = Number(next());
    else if (argv[i] === '--latency') args.latencyMs = Number(next());
    else if (argv[i] === '--jitter') args.jitterMs = Number(next());
    else if (argv[i] === '--steps') args.steps = next().split(',');
    else if (argv[i] === '--record') args.record = true;
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  const whole = (n, min, max) => Number.isInteger(n) && n >= min && n <= max;
  if (
    !whole(args.members, 2, 998) ||
    !whole(args.tasks, 1, 1e8) ||
    !args.vnodes.every((v) => whole(v, 1, 10_000)) ||
    !whole(args.seed, 0, 2 ** 31)
  ) {
    throw new Error('bad --members (2..998), --tasks, --vnodes or --seed');
  }
  if (args.steps.length === 0 || !args.steps.every((step) => ['membership', 'ring'].includes(step))) {
    throw new Error('--steps takes membership, ring or both');
  }
  return args;
}

async function main() {
  const { machine, commit, loadAverage } = require('./lib');
  const argv = process.argv.slice(2);
  const args = parseArgs(argv);
  const load = loadAverage();
  const progress = (line) => process.stderr.write(`  ${line}\n`);
  const membership = args.steps.includes('membership') ? simulateMembership({ ...args, progress }) : undefined;
  const rings = args.steps.includes('ring') ? args.vnodes.map((vnodes) => measureRing({ ...args, vnodes })) : [];
  const header = [
    `### APTA at scale, simulated — ${new Date().toISOString().slice(0, 10)}, commit ${commit()}`,
    '',
    `Machine: ${machine()}, load average ${load.toFixed(1)} at start. Command: \`${['node bench/apta-scale.js', ...argv.filter((a) => a !== '--record')].join(' ')}\`.`,
    '',
  ];
  const report = [
    ...header,
    ...(membership ? formatMembership(args, membership) : []),
    ...(rings.length > 0 ? formatRings(args, rings) : []),
  ].join('\n');
  process.stdout.write(report);
  if (args.record) await appendFile(path.join(__dirname, 'RESULTS.md'), '\n' + report);
}

module.exports = { simulateMembership, measureRing, memberIds };

if (require.main === module) {
  main().catch((error) => {
    process.stderr.write(`bench: ${error.stack ?? error}\n`);
    process.exitCode = 1;
  });
}
