import { uniqueSorted } from '@herald/core/uins';
import { allocateTasks } from '@herald/core/apta';
import { syntheticAudience } from '@herald/audience';
import { CONFIRMATIONS_IN_FLIGHT } from '@herald/executor';
import { makeTempDir, NetnsCluster, waitFor, type TempDir } from '@herald/testing';
import { expectedOutcome } from './outcome';
import { adoptedATask, tearDown, uniqueNames } from './scenario';
import {
  createTask,
  deliveredBy,
  dispatchersHear,
  executorQuiet,
  finished,
  indexIn,
  intersect,
  loginsWalked,
  merged,
  metricLines,
  LAYOUT,
  putBlacklist,
  queuedBy,
  recipientsOf,
  repeatsIn,
  splitByBitmap,
  subtractSorted,
  unitsOf,
  uploadList,
  type UnitRow,
} from './hosts/bed';

/**
 * Herald across hosts (docs/multi-host.md): the production profile on seven
 * hosts (six from the start) made of Linux network namespaces on one bridge (deploy/netns-cluster.sh),
 * each with its own address, data directory and, on the executor hosts, its
 * own presence agent and bitmap file. MariaDB, ZooKeeper and the Kafka mock
 * are reached on the bridge's services address. Needs root, iproute2, nftables, socat.
 *
 *   host 1: interface-1, controller-1, scheduler-1
 *   host 2: scheduler-2, dispatcher-1       host 3: scheduler-3, dispatcher-2
 *   host 4: presence-4, executor-1          host 5: presence-5, executor-2
 *   host 6: presence-6, executor-3          host 7 (added later): presence-7, executor-4
 *
 * One cluster for the whole file; each test starts from what the previous left.
 */
jest.setTimeout(600_000);

const canRun = process.getuid?.() === 0;
const describeAsRoot = canRun ? describe : describe.skip;
if (!canRun) process.stdout.write('multi-host.test.ts: skipped: needs root (ip netns, veth, bridge)\n');

const BATCH = 1000;
/**
 * Asked of every split broadcast: more than two executor hosts' NIC shares carry (load.nicBytesPerSecond /
 * nicBytesPerRecipient = 19,531/s each), so the dispatcher splits it over three by the hosts' reports. Each
 * executor paces its share, so a fault lands while the victim still has seconds of work (the units' states
 * in the store lag the executors).
 */
const SPLIT_SPEED = 50_000;
const CONFIG = {
  dispatcher: { batchSize: BATCH, unitSize: 25_000 },
  accounts: { defaultLimits: { maxSpeed: 1_000_000 } },
  // Short timers keep the tests short (docs/multi-host.md lists them): a unit quiet for 2 s is stalled,
  // an executor silent for 1.5 s is not planned on.
  scheduler: { tickMs: 100, unitStallMs: 2_000 },
  // The NIC, not the (shared) CPU, bounds a host's share: every host reports the same CPU, its own veth. But a
  // report that read no idle CPU at all counts as no spare capacity, so on a busy machine a plan may leave hosts
  // out (holdersOf).
  // Reports every 0.3 s; one counts for 5 s, so a host whose report is late (a loaded machine: the whole run beside
  // another suite) is not left out of a plan, which would then put every unit on the hosts that were on time.
  load: { reportIntervalMs: 300, maxReportAgeMs: 5_000, cpuMicrosPerRecipient: 1, nicBytesPerSecond: 10_000_000 },
  transport: { highWaterMark: 8 },
};
const EXECUTOR_HOSTS = ['executor-1', 'executor-2', 'executor-3'];

describeAsRoot('Herald across hosts (network namespaces)', () => {
  let dir: TempDir;
  let cluster: NetnsCluster;
  const names = uniqueNames('hosts');
  const audience = syntheticAudience({ recipients: 1_000_000, onlineFraction: 0.3, uinLimit: 2 ** 24, seed: 17 });
  const { kept, online } = expectedOutcome(audience);
  let bigList = '';
  /** The list of the fault tests: the first 480,000 kept recipients (about 14 s to send here). */
  const half = kept.slice(0, 480_000);
  let halfList = '';
  let lastTaskId = 0;
  /** The audience's online users, and whoever a test has logged in since. */
  let onlineNow = online;
  const newTask = async (listId: string, body: string, speed?: number) => {
    const task = await createTask(cluster, listId, body, speed);
    lastTaskId = task.id;
    return task;
  };

  beforeAll(async () => {
    await NetnsCluster.sweep('hh');
    dir = await makeTempDir('herald-hosts-');
    cluster = new NetnsCluster(dir.path, LAYOUT, names, `hh${process.pid}`);
    await cluster.up();
    await cluster.configure(CONFIG);
    await cluster.keysAndSchema();
    await cluster.startAll();
    await cluster.publishOnline(audience.online);
    await cluster.waitForPresence();
    // The executors walk the offline lists of those 300,000 logins (empty yet) now, not queued ahead of a test's login.
    await loginsWalked(cluster, EXECUTOR_HOSTS);
    await putBlacklist(cluster, audience.blacklist);
    bigList = await uploadList(cluster, audience.list);
    halfList = await uploadList(cluster, half);
  });

  afterAll(async () => {
    await tearDown(cluster, names, dir).finally(() => cluster?.down());
  });

  /**
   * Every recipient of `list` (sorted, none blacklisted) reached once by the task over `executors`: its online
   * users delivered, the rest queued. Returns the repeats (uins handled twice), for the test to bound.
   */
  async function expectExact(taskId: number, executors: string[], list: Uint32Array): Promise<Uint32Array> {
    const delivered = merged(
      await Promise.all(executors.map(async (id) => (await deliveredBy(cluster, id, taskId)).uins)),
    );
    const queued = merged(await Promise.all(executors.map((id) => queuedBy(cluster, id, taskId))));
    const distinct = uniqueSorted(delivered.slice());
    const distinctQueued = uniqueSorted(queued.slice());
    const listOnline = intersect(list, onlineNow);
    expect(distinct).toEqual(listOnline);
    expect(distinctQueued).toEqual(subtractSorted(list.slice(), listOnline));
    return Uint32Array.from([...repeatsIn(delivered), ...repeatsIn(queued)]);
  }

  let firstTask = 0;
  /** The executor whose host the "host lost" test lost. */
  let lostExecutor = '';

  it('splits a broadcast of 10^6 over the three executor hosts by their load reports; each host delivers exactly the online users of its units, by its own bitmap', async () => {
    const started = Date.now();
    await dispatchersHear(cluster, EXECUTOR_HOSTS); // the plan is made from their reports
    const task = await newTask(bigList, 'split over hosts', SPLIT_SPEED);
    const done = await finished(cluster, task.id);
    expect(done.state).toBe('COMPLETED');
    firstTask = task.id;
    const units = await unitsOf(cluster, task.id);
    expect(units.reduce((n, u) => n + u.end - u.start, 0)).toBe(kept.length);
    expect(new Set(units.map((u) => u.executorId))).toEqual(new Set(EXECUTOR_HOSTS));
    for (const executorId of EXECUTOR_HOSTS) {
      const mine = recipientsOf(
        kept,
        units.filter((u) => u.executorId === executorId),
      );
      const bitmap = cluster.bitmapFile(`presence-${cluster.host(executorId)}`);
      const expected = splitByBitmap(bitmap, mine);
      const delivered = (await deliveredBy(cluster, executorId, task.id)).uins.slice().sort();
      expect(delivered).toEqual(expected.online);
      expect(await queuedBy(cluster, executorId, task.id)).toEqual(expected.offline);
    }
    // Every host's bitmap holds the audience's online users (each agent read the whole presence topic).
    for (const id of cluster.ids('presence').filter((p) => p !== 'presence-7'))
      expect(splitByBitmap(cluster.bitmapFile(id), kept).online).toEqual(online);
    process.stdout.write(
      `10^6 over three hosts: ${kept.length} kept, units per host ${EXECUTOR_HOSTS.map((e) => `${e}=${units.filter((u) => u.executorId === e).length}`).join(' ')}, ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
    );
  });

  it("delivers, at one login, a user's offline entries held on two hosts, once each", async () => {
    expect(firstTask).toBeGreaterThan(0);
    const first = await unitsOf(cluster, firstTask);
    const hostIn = (units: typeof first, list: Uint32Array, uin: number) => {
      const at = indexIn(list, uin);
      return units.find((u) => u.start <= at && at < u.end)!.executorId;
    };
    // A second list: offline users of the first broadcast from its first and its last executor's ranges.
    // However the second broadcast is placed, some of them land on another host than the first time.
    const offline = subtractSorted(kept.slice(), online);
    const firstHost = first[0]!.executorId;
    const lastHost = first[first.length - 1]!.executorId;
    const pick = (host: string) =>
      Array.from(offline)
        .filter((u) => hostIn(first, kept, u) === host)
        .filter((_, i) => i % 97 === 0)
        .slice(0, 300);
    const sample = Uint32Array.from([...pick(firstHost), ...pick(lastHost)]).sort();
    const second = await newTask(await uploadList(cluster, sample), 'second list', SPLIT_SPEED);
    expect((await finished(cluster, second.id)).state).toBe('COMPLETED');
    const secondUnits = await unitsOf(cluster, second.id);
    const user = Array.from(sample).find((u) => hostIn(first, kept, u) !== hostIn(secondUnits, sample, u))!;
    expect(user).toBeDefined();
    const [hostA, hostB] = [hostIn(first, kept, user), hostIn(secondUnits, sample, user)];

    await cluster.publishOnline(Uint32Array.of(user)); // one presence event
    onlineNow = uniqueSorted(merged([onlineNow, Uint32Array.of(user)]));
    const atLogin = async (executorId: string, taskId: number) => {
      const sink = await deliveredBy(cluster, executorId, taskId);
      return Array.from(sink.uins).filter((u, i) => u === user && sink.atLogin[i] === 1).length;
    };
    // A deadline for a loaded 2-core CI machine, not a latency claim: at load 20 one check took ~370 ms.
    try {
      await waitFor(async () => (await atLogin(hostA, firstTask)) > 0 && (await atLogin(hostB, second.id)) > 0, {
        timeoutMs: 120_000,
        intervalMs: 200,
        message: `user ${user} delivered at login by ${hostA} (task ${firstTask}) and ${hostB} (task ${second.id})`,
      });
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${await loginSeen(user, [hostA, hostB])}`, { cause: error });
    }
    await cluster.waitForPresence();
    // Once each, and by no other host.
    for (const executorId of EXECUTOR_HOSTS) {
      expect(await atLogin(executorId, firstTask)).toBe(executorId === hostA ? 1 : 0);
      expect(await atLogin(executorId, second.id)).toBe(executorId === hostB ? 1 : 0);
    }
  });

  /**
   * Where a login stopped, for a failure message: per executor host, whether its agent's bitmap shows the user
   * online, what its executor still queues for them, and what either process logged about logins or presence.
   */
  async function loginSeen(user: number, executors: string[]): Promise<string> {
    const lines: string[] = [];
    for (const executorId of executors) {
      const agent = `presence-${cluster.host(executorId)}`;
      const online = splitByBitmap(cluster.bitmapFile(agent), Uint32Array.of(user)).online.length === 1;
      const queued: number[] = [];
      for (const taskId of [firstTask, lastTaskId])
        if ((await queuedBy(cluster, executorId, taskId)).includes(user)) queued.push(taskId);
      lines.push(
        `${agent}: user ${online ? 'online' : 'offline'} in its bitmap; ${executorId} queues tasks [${queued.join(', ')}]`,
      );
      for (const id of [agent, executorId]) lines.push(`  ${id}: ${(await loginMetrics(id)).join(' ')}`);
      for (const p of cluster.processes.filter((q) => q.id === agent || q.id === executorId))
        lines.push(
          ...p.output
            .split('\n')
            .filter((l) => /login|presence|rebuild|skipped|notice/i.test(l))
            .slice(-10)
            .map((l) => `  ${p.id}: ${l.slice(0, 400)}`),
        );
    }
    return lines.join('\n');
  }

  /** A process's login and presence metrics (the walks, the login queue, the notices), one `name{labels} value` each. */
  async function loginMetrics(id: string): Promise<string[]> {
    try {
      return (await metricLines(cluster, id)).filter((l) =>
        /^herald_(executor_login|presence_(logins|notices|rebuilds|events))/.test(l),
      );
    } catch (error) {
      return [`metrics not read: ${String(error)}`];
    }
  }

  /** Delivery records executor `id` wrote for a task so far. */
  const recordsOf = async (id: string, taskId: number) => (await deliveredBy(cluster, id, taskId)).uins.length;

  /** Units by executor, each as `no:size:state`, and the dispatchers' plan line of their task: what a wait saw. */
  function unitsSeen(taskId: number, units: readonly UnitRow[]): string {
    const byExecutor = [...new Set(units.map((u) => u.executorId))].map(
      (e) =>
        `${e}: ${units
          .filter((u) => u.executorId === e)
          .map((u) => `${u.unitNo}:${u.end - u.start}:${u.state}`)
          .join(' ')}`,
    );
    const planned = cluster.processes
      .filter((p) => p.tier === 'dispatcher')
      .flatMap((p) =>
        p.output.split('\n').filter((l) => l.includes('units planned') && l.includes(`"taskId":${taskId},`)),
      );
    return `units ${byExecutor.join('; ') || 'none'}; plan ${planned.join(' ') || 'not logged'}`;
  }

  /**
   * The executors holding units of a task, the one with the most first (ties: the last in id order), once its
   * units are stored (all at once). The fault tests pick their victim from it rather than naming one: the plan
   * follows the hosts' load reports, and on a loaded machine those vary. Every host reads the same shared CPU
   * (over the sampler's 5 s window): all hosts reading no idle tick, the units go evenly over them ('saturated');
   * when some read a little spare, each host takes its share plus an even part of the shortfall ('short'), so a
   * host may hold 2 units or 15.
   */
  async function holdersOf(taskId: number): Promise<string[]> {
    let units: UnitRow[] = [];
    await waitFor(async () => (units = await unitsOf(cluster, taskId)).length > 0, {
      timeoutMs: 30_000,
      intervalMs: 100,
      message: `task ${taskId} planned`,
    });
    const held = (id: string) => units.filter((u) => u.executorId === id).length;
    return [...new Set(units.map((u) => u.executorId))].sort((a, b) => held(b) - held(a) || b.localeCompare(a));
  }

  /**
   * Waits until executor `id` has delivered a quarter of what its units of the task will deliver (their online
   * recipients by its host's bitmap), by its own delivery file: a fault then lands while it has seconds of work
   * left. Not by the units' states in the store: they lag the executors (reports go through the bus and the
   * controller), most on a loaded machine, where a host the store showed mid-broadcast had sent everything by the
   * time the fault landed, and nothing was left to move. Returns whether the check saw it below half (a test that
   * needs work left asserts it); past half it returns too, so a fast host only makes the fault land late.
   */
  async function partWaySent(id: string, taskId: number): Promise<boolean> {
    const share = recipientsOf(
      half,
      (await unitsOf(cluster, taskId)).filter((u) => u.executorId === id),
    );
    const toDeliver = splitByBitmap(cluster.bitmapFile(`presence-${cluster.host(id)}`), share).online.length;
    let records = 0;
    const seen = async () =>
      `${id} had ${records} of its ${toDeliver} records; ${unitsSeen(taskId, await unitsOf(cluster, taskId))}`;
    try {
      await waitFor(async () => (records = await recordsOf(id, taskId)) >= toDeliver / 4, {
        timeoutMs: 60_000,
        intervalMs: 50,
        message: `task ${taskId} a quarter sent on ${id}`,
      });
    } catch (error) {
      throw new Error(`${(error as Error).message}; at the last check ${await seen()}`, { cause: error });
    }
    if (records <= toDeliver / 2) return true;
    process.stdout.write(`no check saw ${id} between a quarter and half of its share: ${await seen()}\n`);
    return false;
  }

  it('moves the units of an executor host whose link is cut mid-broadcast; healed, it sends nothing for them; nothing lost', async () => {
    const task = await newTask(halfList, 'link cut', SPLIT_SPEED);
    const victim = (await holdersOf(task.id))[0]!;
    const others = EXECUTOR_HOSTS.filter((e) => e !== victim);
    await partWaySent(victim, task.id);
    const atCut = await recordsOf(victim, task.id);
    const heldAtCut = (await unitsOf(cluster, task.id)).filter((u) => u.executorId === victim && u.state !== 'DONE');
    await cluster.link(cluster.host(victim), 'down');
    // Longer than the stall watch: until none of its unfinished units is its own any more.
    await waitFor(
      async () => (await unitsOf(cluster, task.id)).every((u) => u.executorId !== victim || u.state === 'DONE'),
      {
        timeoutMs: 60_000,
        intervalMs: 200,
        message: `the units of ${victim} moved while its link was down`,
      },
    );
    const handledWhileCut = (await recordsOf(victim, task.id)) - atCut;
    await cluster.link(cluster.host(victim), 'up');
    expect((await finished(cluster, task.id)).state).toBe('COMPLETED');
    const moved = (await unitsOf(cluster, task.id)).filter((u) => heldAtCut.some((h) => h.unitNo === u.unitNo));
    expect(moved.filter((u) => u.executorId !== victim).length).toBeGreaterThan(0);
    // Healed: whatever the dispatchers still held for it is dropped, not delivered.
    const afterHeal = await recordsOf(victim, task.id);
    await dispatchersHear(cluster, EXECUTOR_HOSTS);
    await executorQuiet(cluster, victim);
    expect(await recordsOf(victim, task.id)).toBe(afterHeal);
    const repeats = await expectExact(task.id, [victim, ...others], half);
    // A repeat is only a recipient of a unit it held at the cut, handled before the move reached the store.
    const heldRecipients = recipientsOf(half, heldAtCut);
    expect(subtractSorted(Uint32Array.from(repeats).sort(), heldRecipients)).toEqual(new Uint32Array(0));
    // And at most what could be on its way to it at the cut: its inboxes' high-water mark and the batches in hand
    // (the one being written and those waiting for their confirmation), per unit.
    expect(repeats.length).toBeLessThanOrEqual(
      heldAtCut.length * (CONFIG.transport.highWaterMark + 1 + CONFIRMATIONS_IN_FLIGHT) * BATCH,
    );
    process.stdout.write(
      `link cut: ${heldAtCut.length} units of ${victim} moved; it delivered ${handledWhileCut} while cut; ${repeats.length} repeats\n`,
    );
  });

  it('fences a scheduler host partitioned from the other hosts mid-broadcast; the broadcast completes, nothing lost', async () => {
    const schedulers = cluster.ids('scheduler');
    const ring = allocateTasks(schedulers); // APTA's allocation: its vnode count, not HashRing's default
    // A task owned by a scheduler on a scheduler + dispatcher host (2 or 3): tiny tasks move the id on.
    const tiny = await uploadList(cluster, half.subarray(0, 1));
    while (cluster.host(ring.ownerOf(lastTaskId + 1)!) === 1)
      expect((await finished(cluster, (await newTask(tiny, 'tiny')).id)).state).toBe('COMPLETED');
    const owner = ring.ownerOf(lastTaskId + 1)!;
    const host = cluster.host(owner);
    const cutOff = cluster.processes.find((p) => p.id === owner && p.child.exitCode === null)!;
    const survivors = cluster.processes.filter((p) => p.tier === 'scheduler' && p.id !== owner);
    const task = await newTask(halfList, 'scheduler partition', SPLIT_SPEED);
    expect(task.id).toBe(lastTaskId);
    await partWaySent((await holdersOf(task.id))[0]!, task.id);
    const lengthAtCut = cutOff.output.length;
    const unitsAtCut = await unitsOf(cluster, task.id);
    const schedulerLogsAtCut = new Map(survivors.map((p) => [p.id, p.output.length]));
    await cluster.isolate(host, 'on');
    await waitFor(() => survivors.some((p) => adoptedATask(p.output.slice(schedulerLogsAtCut.get(p.id)))), {
      timeoutMs: 60_000,
      intervalMs: 100,
      message: `a survivor adopting the task of ${owner}`,
    });
    await waitFor(() => /"to":"OFFLINE"/.test(cutOff.output.slice(lengthAtCut)), {
      timeoutMs: 30_000,
      message: `${owner} going OFFLINE`,
    });
    const lengthAtHeal = cutOff.output.length;
    await cluster.isolate(host, 'off');
    expect((await finished(cluster, task.id)).state).toBe('COMPLETED');
    await waitFor(() => /"to":"WORKING"/.test(cutOff.output.slice(lengthAtHeal)), {
      timeoutMs: 60_000,
      message: `${owner} rejoining`,
    });
    // Fenced: it found in the store that the task has a newer owner.
    await waitFor(() => /lost ownership of a task/.test(cutOff.output.slice(lengthAtCut)), {
      timeoutMs: 30_000,
      message: `${owner} noticing it lost the task`,
    });
    for (const id of EXECUTOR_HOSTS) await executorQuiet(cluster, id);
    const repeats = await expectExact(task.id, EXECUTOR_HOSTS, half);
    // At most the batch in flight per unit (docs/apta.md: what a deposed owner's streams had sent).
    const unitsAtEnd = await unitsOf(cluster, task.id);
    const units = unitsAtEnd.length;
    if (repeats.length > units * BATCH) {
      // What a failure needs to be read: which units changed executor after the cut, and the survivors' re-runs.
      const moved = unitsAtEnd.filter(
        (u) => unitsAtCut.find((c) => c.unitNo === u.unitNo)?.executorId !== u.executorId,
      );
      const reruns = survivors.map(
        (p) =>
          `${p.id}: ${p.output.slice(schedulerLogsAtCut.get(p.id)).match(/running it again from its checkpoint/g)?.length ?? 0} re-runs`,
      );
      const byExecutor = await Promise.all(
        EXECUTOR_HOSTS.map(
          async (id) => `${id}: ${repeatsIn((await deliveredBy(cluster, id, task.id)).uins.slice().sort()).length}`,
        ),
      );
      throw new Error(
        `${repeats.length} repeats over ${units} units, above ${units * BATCH}; units moved after the cut: ` +
          `${moved.map((u) => `${u.unitNo}->${u.executorId}`).join(' ') || 'none'}; ${reruns.join(', ')}; ` +
          `repeats within each executor's own deliveries: ${byExecutor.join(', ')}`,
      );
    }
    process.stdout.write(
      `scheduler partition: ${owner} on host ${host} cut off and healed; ${repeats.length} repeats over ${units} units\n`,
    );
  });

  it('loses an executor host with its disk mid-broadcast: its unfinished units run elsewhere; the offline entries it held are gone, as documented', async () => {
    const task = await newTask(halfList, 'host lost', SPLIT_SPEED);
    // The host with the most units (7 or more of the plan's 20 or 21), lost a quarter to half of the way through its
    // share by its own delivery file. Not by the units' states in the store: they lag the executors (the reports go
    // through the bus and the controller), most on a loaded machine, where a host the store showed mid-broadcast had
    // sent everything by the time it was lost and nothing was left to move.
    const victim = (await holdersOf(task.id))[0]!;
    const survivors = EXECUTOR_HOSTS.filter((e) => e !== victim);
    const host = cluster.host(victim);
    lostExecutor = victim;
    expect(await partWaySent(victim, task.id)).toBe(true);
    await cluster.loseHost(host);
    const atKill = (await unitsOf(cluster, task.id)).filter((u) => u.executorId === victim);
    const done = await finished(cluster, task.id);
    expect(done.state).toBe('COMPLETED');
    // Every recipient counted once in the report, though part of the records went with the disk.
    expect(done.report.delivered + done.report.offline).toBe(half.length);
    const after = await unitsOf(cluster, task.id);
    // Every unit it had not finished is DONE: moved and finished on a survivor, or finished by the reports it
    // sent just before it died. At least one moved.
    const unfinishedAtKill = after.filter((u) => atKill.some((k) => k.unitNo === u.unitNo && k.state !== 'DONE'));
    expect(unfinishedAtKill.every((u) => u.state === 'DONE')).toBe(true);
    const moved = unfinishedAtKill.filter((u) => survivors.includes(u.executorId));
    expect(moved.length).toBeGreaterThan(0);

    // The survivors: every unit never on the lost host exactly; each moved unit from a point on (its checkpoint) to its end.
    for (const id of survivors) await executorQuiet(cluster, id);
    const handled = new Map<string, Uint32Array>();
    for (const id of survivors)
      handled.set(id, merged([(await deliveredBy(cluster, id, task.id)).uins, await queuedBy(cluster, id, task.id)]));
    const everywhere = uniqueSorted(merged([...handled.values()]));
    const neverLost = recipientsOf(
      half,
      after.filter((u) => !atKill.some((k) => k.unitNo === u.unitNo)),
    );
    expect(intersect(everywhere, neverLost)).toEqual(neverLost);
    for (const unit of moved) {
      const recipients = half.subarray(unit.start, unit.end);
      const reached = intersect(everywhere, recipients);
      expect(reached.length).toBeGreaterThan(0);
      expect(reached).toEqual(recipients.subarray(recipients.length - reached.length));
    }

    // The promise (docs/multi-host.md, "A host lost"): an offline entry queued on the lost disk is lost; one
    // queued by a survivor for a moved unit is delivered at login, once.
    // Its units' recipients no survivor handled: handled by it alone (before each moved unit's checkpoint, or in a
    // unit it finished), so their offline entries were on its disk.
    const lostOnes = subtractSorted(subtractSorted(recipientsOf(half, atKill), everywhere), onlineNow);
    const movedOffline = subtractSorted(intersect(everywhere, recipientsOf(half, moved)), onlineNow);
    expect(lostOnes.length).toBeGreaterThan(0);
    expect(movedOffline.length).toBeGreaterThan(0);
    const [lost, kept1] = [lostOnes[0]!, movedOffline[0]!];
    await cluster.publishOnline(Uint32Array.of(lost, kept1));
    onlineNow = uniqueSorted(merged([onlineNow, Uint32Array.of(lost, kept1)]));
    const atLogin = async (uin: number) => {
      let n = 0;
      for (const id of survivors) {
        const sink = await deliveredBy(cluster, id, task.id);
        n += Array.from(sink.uins).filter((u, i) => u === uin && sink.atLogin[i] === 1).length;
      }
      return n;
    };
    await waitFor(async () => (await atLogin(kept1)) > 0, {
      timeoutMs: 30_000,
      intervalMs: 200,
      message: `user ${kept1} of a moved unit delivered at login`,
    });
    await cluster.waitForPresence();
    for (const id of survivors) await executorQuiet(cluster, id);
    expect(await atLogin(kept1)).toBe(1);
    expect(await atLogin(lost)).toBe(0);
    process.stdout.write(
      `host lost: ${moved.length} of ${atKill.length} units of ${victim} moved; ${lostOnes.length} offline entries lost with its disk\n`,
    );
  });

  it('gives new units to a host added during a broadcast, and loses no work of a host drained during one', async () => {
    const live = cluster.ids('executor').filter((id) => cluster.runningOn(cluster.host(id)).some((p) => p.id === id));
    expect(live).toEqual(EXECUTOR_HOSTS.filter((e) => e !== lostExecutor)); // the previous test lost its host
    const added = 'executor-4';
    const running = await newTask(halfList, 'while a host joins', SPLIT_SPEED);
    await partWaySent((await holdersOf(running.id))[0]!, running.id);
    await cluster.addHost(cluster.host(added));
    await cluster.waitForPresence();
    await dispatchersHear(cluster, [...live, added]);
    // More than the live hosts can carry: planned on every host with spare capacity, the new one too.
    const task = await newTask(halfList, 'after a host joined', 1_000_000);
    const holders = await holdersOf(task.id);
    expect(holders).toContain(added);
    // A live host holding units of it if there is one: while `running` still sends, its hosts report no free
    // sender slot and the plan may give every unit to the added host, which is then the one drained.
    const drained = holders.find((e) => e !== added) ?? added;
    await partWaySent(drained, task.id);
    const drainedAt = Date.now();
    await cluster.admin('drain', drained);
    await cluster.admin('drain', `presence-${cluster.host(drained)}`);
    const drainSeconds = (Date.now() - drainedAt) / 1000;
    for (const t of [running, task]) expect((await finished(cluster, t.id)).state).toBe('COMPLETED');

    // Nothing lost: every recipient handled by some executor, and each delivered exactly its online ones by its own bitmap.
    const executors = [...live, added];
    for (const id of executors.filter((e) => e !== drained)) await executorQuiet(cluster, id);
    for (const t of [running, task]) {
      const handled: Uint32Array[] = [];
      for (const id of executors) {
        const delivered = uniqueSorted((await deliveredBy(cluster, id, t.id)).uins.slice().sort());
        const queued = uniqueSorted(await queuedBy(cluster, id, t.id));
        const mine = uniqueSorted(merged([delivered, queued]));
        const byBitmap = splitByBitmap(cluster.bitmapFile(`presence-${cluster.host(id)}`), mine);
        expect(delivered).toEqual(byBitmap.online);
        handled.push(mine);
      }
      expect(uniqueSorted(merged(handled))).toEqual(half);
    }
    const units = await unitsOf(cluster, task.id);
    process.stdout.write(
      `host added and drained: units ${executors.map((e) => `${e}=${units.filter((u) => u.executorId === e).length}`).join(' ')}; drain took ${drainSeconds.toFixed(1)} s\n`,
    );
  });
});
