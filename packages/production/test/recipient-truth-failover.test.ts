import { createPool } from 'mysql2/promise';
import { allocateTasks } from '@herald/core/apta';
import type { FunnelStage } from '@herald/core/fate';
import { compileFrequencyPolicy, dayOf, type FrequencyOptions } from '@herald/core/frequency';
import { encodeRecipientList } from '@herald/core/recipient-list';
import type { ListMeta, Task } from '@herald/core/task';
import { subtractSorted } from '@herald/core/uins';
import { syntheticAudience } from '@herald/audience';
import type { WebhookBatch } from '@herald/executor';
import { MySqlFrequencyCounter } from '@herald/store-mysql';
import {
  TEST_AUTH_OPTIONS,
  waitFor,
  WebhookReceiver,
  type ProcessCluster,
  type TempDir,
  type WebhookAnswer,
} from '@herald/testing';
import { api, expectedRow, lookup, mapPooled, reportRows, type Answer } from './recipient-lookups';
import {
  adoptedATask,
  broadcastThroughOutage,
  startThreeSchedulerCluster,
  tearDown,
  THREE_SCHEDULERS,
  uniqueNames,
} from './scenario';

/**
 * Issue 19's "Done when" on the production profile (docs/recipient-truth.md,
 * "On the production profile"): a broadcast of 10^5 distinct recipients with
 * every fate represented, through an executor and the owning scheduler
 * killed mid-send, answered recipient by recipient against the truth the
 * test computes on its own.
 *
 * - Uploaded: 102,040 entries, 100,000 distinct (2,040 duplicate copies);
 *   ~3% blacklisted; a subset got an earlier task of the same content
 *   (`already_sent`); a subset was at its daily frequency limit before the
 *   task (`over_frequency`, the shared MySQL counter, the policy pinned to
 *   the time of day as production-frequency.test.ts does); ~30% online.
 * - Delivered through a webhook that rejects a known subset of uins for good
 *   with a reason (`rejected`).
 * - Paced, so the kills land with most of the list still to send: the
 *   executor holding the most unfinished units and the task's owning
 *   scheduler (of three, APTA) are SIGKILLed together once a fifth is sent;
 *   the surviving executor takes the units (the scheduler's stall watch), a
 *   surviving scheduler adopts the task, it completes. The killed executor
 *   is started again afterwards (its delivery records and offline lists are
 *   on its disk only).
 * - Then a subset of the offline users log in (`delivered_at_login`), a
 *   subset whose count was raised to the limit after filtering log in
 *   (`dropped_at_login: over_frequency`), and the task's short ttl passes for
 *   the rest (`expired`: no login before the expiry).
 *
 * What a kill may legitimately change, and what is asserted: the fate, its
 * link, reason and login outcome of every uin are deterministic (they depend
 * on the lists, presence, the webhook's verdict and the logins, none of which
 * a kill changes), and must equal the truth exactly. What a kill may change is
 * which executor confirmed a position and when (a batch in flight at the kill
 * is sent and recorded again, at least once, by the unit's next executor; the
 * record found last wins): the answer must name one of the executors, and the
 * report's row must name the same one as the answer. At the webhook, every
 * online kept recipient must arrive at least once, nobody else online, and
 * the repeats are counted (reported, bounded by the batches in flight).
 *
 * The funnel's offline stages must equal the per-recipient answers counted
 * by fate: a recipient queued on both executors (the batch in flight at the
 * kill) and settled by both at its login is counted once, by its latest
 * outcome, as the answers say (ClusterDeliveryRecords.loginCounts).
 *
 * The answers the expiry cannot change (all but the offline recipients who never logged in: 42,774) are asked
 * while the test waits for the expiry, the other 57,226 (and the 2,677 logins again, which must not change)
 * after it. An answer naming an executor unreachable (busy past the interface's 2 s) is asked again, at most
 * four times, and counted (16 in flight: 32 made a busy executor miss the 2 s under CI load); every final answer must equal the truth.
 *
 * Run time (2026-11-28, the shared 2-core Intel host, 2 x Intel Xeon, load average 7-15, jest
 * --maxWorkers=1, alone): 406 s. Cluster up in 52 s, the main task completed at 65 s, logins settled at
 * 77 s, 42,774 lookups before the expiry at 996/s (0 asked again), expiry at 295 s, 59,903 lookups after it
 * at 573/s, the report of 10^5 rows in 0.7 s. Before the lookups were made cheaper and split around the
 * expiry, the same run took 1,031 s on this host (quiet): expiry at 262 s, then 10^5 lookups at 131/s in
 * 763 s. Each run prints its own figures ("recipient truth through failover: ..."); beside the other
 * production tests it goes slower still: each test gets 40 minutes.
 */
jest.setTimeout(2_400_000);

const BATCH = 500;
/** Paced so the kills land mid-send on any machine: ~8 s for the ~84,000 kept. */
const SPEED = 10_000;
/**
 * Short, so expiry comes soon after the logins; long enough for the send, the failover and the killed
 * executor's restart on a loaded machine (120 s was not, on a slower 2-core host beside the multi-host test).
 */
const TTL_SECONDS = 240;
/** Lookups in flight at once. */
const WIDTH = 16;

/** The webhook's verdict on a uin (reasons a channel gives; one with a dot). */
const reasonOf = (uin: number) => (uin % 7 === 0 ? 'unregistered' : uin % 17 === 0 ? 'bad.token' : undefined);

/** Each unit's executor and state, from the store. */
async function unitsOf(database: string, taskId: number): Promise<{ executorId: string; state: string }[]> {
  const pool = createPool({ uri: process.env.HERALD_TEST_MYSQL_URL!, database });
  try {
    const [rows] = await pool.query('SELECT executor_id AS executorId, state FROM execution_units WHERE task_id = ?', [
      taskId,
    ]);
    return rows as { executorId: string; state: string }[];
  } finally {
    await pool.end();
  }
}

describe('recipient truth through an executor and scheduler failover, production profile', () => {
  const names = uniqueNames('fatekill');
  const audience = syntheticAudience({
    recipients: 102_040,
    onlineFraction: 0.3,
    duplicateFraction: 0.02,
    blacklistFraction: 0.03,
    uinLimit: 2 ** 24,
    seed: 19,
  });
  const { distinct } = audience;
  const copies = new Map<number, number>();
  for (const uin of audience.list) copies.set(uin, (copies.get(uin) ?? 0) + 1);
  const isBlack = new Set(audience.blacklist);
  const isOnline = new Set(audience.online);
  // The earlier task's list, and the users at their daily limit before the task: every 11th and every 23rd
  // distinct uin, so some are in both, and some blacklisted (the first link that removes a user names it).
  const earlierList = distinct.filter((_, i) => i % 11 === 3);
  const capped = distinct.filter((_, i) => i % 23 === 5);
  const earlierKept = new Set(subtractSorted(earlierList.slice(), audience.blacklist));
  const isCapped = new Set(capped);
  const keptByTruth = distinct.filter((uin) => !isBlack.has(uin) && !earlierKept.has(uin) && !isCapped.has(uin));
  const offlineKept = keptByTruth.filter((uin) => !isOnline.has(uin));
  // Offline users who log in before the expiry (none the webhook would reject), and those whose count is raised
  // to the limit after filtering and before they log in.
  const loggedIn = offlineKept.filter((uin, i) => i % 40 === 0 && reasonOf(uin) === undefined);
  const droppedAtLogin = offlineKept.filter((_, i) => i % 40 === 20);
  const isLoggedIn = new Set(loggedIn);
  const isDropped = new Set(droppedAtLogin);

  // Every slot of the day released two minutes after local midnight, the day shifted so that it is about noon.
  const utcMinute = Math.floor((Date.now() % 86_400_000) / 60_000);
  const noonOffset = (((720 - utcMinute) % 1440) + 1440) % 1440;
  const frequency: FrequencyOptions = {
    dailyLimit: 2,
    windows: [
      { fromMinute: 0, toMinute: 1, slots: 1 },
      { fromMinute: 1, toMinute: 2, slots: 1 },
    ],
    utcOffsetMinutes: noonOffset > 840 ? noonOffset - 1440 : noonOffset,
  };
  const policy = compileFrequencyPolicy(frequency);

  /** The truth, from the lists, presence, the webhook's rule and the logins alone. */
  function truthOf(uin: number): { fate: string; detail: string } {
    if (isBlack.has(uin)) return { fate: 'removed', detail: 'blacklisted' };
    if (earlierKept.has(uin)) return { fate: 'removed', detail: 'already_sent' };
    if (isCapped.has(uin)) return { fate: 'removed', detail: 'over_frequency' };
    if (isOnline.has(uin)) {
      const reason = reasonOf(uin);
      return reason === undefined ? { fate: 'delivered_online', detail: '' } : { fate: 'rejected', detail: reason };
    }
    if (isLoggedIn.has(uin)) return { fate: 'queued_offline', detail: 'delivered_at_login' };
    if (isDropped.has(uin)) return { fate: 'queued_offline', detail: 'dropped_at_login: over_frequency' };
    return { fate: 'queued_offline', detail: 'expired' };
  }

  let dir: TempDir;
  let cluster: ProcessCluster;
  let receiver: WebhookReceiver;
  let counter: MySqlFrequencyCounter;
  /** What the webhook received, by task: online (uin -> times) and at login. */
  const pushed = new Map<number, { online: Map<number, number>; atLogin: Set<number> }>();
  const pushedTo = (taskId: number) => {
    if (!pushed.has(taskId)) pushed.set(taskId, { online: new Map(), atLogin: new Set() });
    return pushed.get(taskId)!;
  };
  let mainTaskId = 0;
  /** The funnel's login counts once the logins settled, reported beside the truth. */
  let loginFunnel: Record<string, unknown> = {};
  /** The first step went through: the others ask about its task (without it, 10^5 lookups would only fail). */
  let settled = false;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    receiver.answerBy((request): WebhookAnswer => {
      const batch = request.body as WebhookBatch;
      const { online, atLogin } = pushedTo(batch.taskId);
      for (const uin of batch.uins)
        if (batch.atLogin) atLogin.add(uin);
        else online.set(uin, (online.get(uin) ?? 0) + 1);
      const rejected = batch.uins.flatMap((uin) => {
        const reason = reasonOf(uin);
        return reason === undefined ? [] : [{ uin, reason }];
      });
      return { status: 200, body: JSON.stringify({ rejected }) };
    });
    ({ dir, cluster } = await startThreeSchedulerCluster('fatekill', names, audience, {
      dispatcher: { batchSize: BATCH, unitSize: 5_000 },
      accounts: { defaultLimits: { maxSpeed: 1_000_000 } },
      delivery: { kind: 'webhook', webhook: { url: receiver.url, timeoutMs: 10_000 } },
      // Not rate limited: the 10^5 lookups go as fast as the interface answers (over the clusters' 1,000/s).
      auth: { ...TEST_AUTH_OPTIONS, rateLimit: { perSecond: 0 } },
      frequency: { enabled: true, ...frequency },
      // A short stall watch and quick load reports: the dead executor's units move in seconds (executor-failover.test.ts).
      scheduler: { tickMs: 100, unitStallMs: 2_000 },
      load: { reportIntervalMs: 300, maxReportAgeMs: 1_500 },
      transport: { highWaterMark: 8 },
    }));
    counter = await MySqlFrequencyCounter.open({
      url: process.env.HERALD_TEST_MYSQL_URL!,
      database: names.database,
      poolSize: 2,
    });
  });

  afterAll(async () => {
    await counter?.close();
    await tearDown(cluster, names, dir);
    await receiver?.stop();
  });

  /** Two uses today for each of `uins` (the counter is idempotent per task: two made-up task ids). */
  async function atTheLimit(uins: Uint32Array, firstTaskId: number): Promise<void> {
    const day = dayOf(policy, Date.now());
    for (const taskId of [firstTaskId, firstTaskId + 1]) await counter.consume([{ taskId, day, uins }]);
  }

  const answers = new Map<number, Answer>();
  /** Whether the truth for `uin` is the expiry's (queued offline, never logged in): answered `waiting` until then. */
  const expiresWithTheTask = (uin: number) => truthOf(uin).detail === 'expired';
  /** Whether an answer is unknown, or its login outcome is, because an executor did not answer in time. */
  const namesAHostDown = (answer: Answer) =>
    [answer.fate === 'unknown' ? answer.reason : undefined, answer.then?.reason].some((r) =>
      r?.includes('unreachable'),
    );
  /** What the interface logged of executors that did not answer: why an answer says a host was unreachable. */
  const hostsDown = () =>
    cluster.processes
      .filter((p) => p.tier === 'interface')
      .flatMap((p) => p.output.split('\n').filter((line) => line.includes('did not give its delivery records')))
      .slice(0, 5);
  /** Asks GET /api/v1/tasks/:id/recipients/:uin for each of `uins`, WIDTH at a time, into `answers`. */
  async function askAll(uins: readonly number[], when: string): Promise<void> {
    const asked = performance.now();
    let pending = uins;
    let again = 0;
    // An executor busy past the 2 s the interface waits (the survivor settling the logins, on a loaded host) makes
    // its part "host unreachable", as documented: such an answer is asked again, at most four times, and counted.
    for (let round = 0; round < 5 && pending.length > 0; round++) {
      again += round === 0 ? 0 : pending.length;
      for (const answer of await mapPooled(pending, WIDTH, (uin) => lookup(cluster, task.id, uin)))
        answers.set(answer.uin, answer);
      pending = pending.filter((uin) => namesAHostDown(answers.get(uin)!));
    }
    const seconds = (performance.now() - asked) / 1000;
    mark(
      `${uins.length} lookups ${when} (${(uins.length / seconds).toFixed(0)}/s, ${WIDTH} at a time, ${again} again)`,
    );
  }
  let task: Task;
  const started = performance.now();
  const timings: string[] = [];
  const mark = (what: string) => timings.push(`${what} ${((performance.now() - started) / 1000).toFixed(0)} s`);

  it('sends through the kills, then logins and the expiry settle every offline recipient', async () => {
    mark('cluster up');
    // The earlier task of the same content, to a subset: its kept recipients are `already_sent` in the next.
    const binary = { 'content-type': 'application/octet-stream' };
    await api(cluster, '/api/v1/blacklists/global', {
      method: 'PUT',
      headers: binary,
      body: encodeRecipientList(audience.blacklist),
    });
    const earlierListMeta = await api<ListMeta>(cluster, '/api/v1/lists?accountId=acme', {
      method: 'POST',
      headers: binary,
      body: encodeRecipientList(earlierList),
    });
    const earlier = await api<Task>(cluster, '/api/v1/tasks', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ accountId: 'acme', listId: earlierListMeta.id, content: { body: 'fate' } }),
    });
    await waitFor(async () => (await api<Task>(cluster, `/api/v1/tasks/${earlier.id}`)).state === 'COMPLETED', {
      timeoutMs: 120_000,
      intervalMs: 200,
      message: `the earlier task did not complete\n${cluster.logs()}`,
    });
    expect((await api<Task>(cluster, `/api/v1/tasks/${earlier.id}`)).report.kept).toBe(earlierKept.size);
    // After the earlier task was filtered, so that its list keeps them: the capped users reach their limit.
    await atTheLimit(capped, 1_000_001);
    mark('earlier task done');

    let killedExecutor = '';
    let killedScheduler = '';
    let sentAtKill = 0;
    const sent = async (id: number) => {
      const { report } = await api<Task>(cluster, `/api/v1/tasks/${id}`);
      return report.delivered + report.offline + Object.values(report.deadLetters ?? {}).reduce((a, b) => a + b, 0);
    };
    const outcome = await broadcastThroughOutage(
      cluster,
      audience,
      async (taskId) => {
        mainTaskId = taskId;
        await waitFor(async () => (await sent(taskId)) >= keptByTruth.length / 5, {
          timeoutMs: 60_000,
          intervalMs: 20,
          message: 'a fifth of the task sent',
        });
        const holding = new Map<string, number>();
        for (const u of await unitsOf(names.database, taskId))
          if (u.state !== 'DONE') holding.set(u.executorId, (holding.get(u.executorId) ?? 0) + 1);
        killedExecutor = [...holding].sort((a, b) => b[1] - a[1])[0]![0];
        killedScheduler = allocateTasks(THREE_SCHEDULERS).ownerOf(taskId)!;
        const victims = [killedExecutor, killedScheduler].map((id) => cluster.processes.find((p) => p.id === id)!);
        await Promise.all(victims.map((p) => cluster.stop(p, 'SIGKILL')));
        sentAtKill = await sent(taskId);
      },
      { content: { body: 'fate' }, speed: SPEED, ttlSeconds: TTL_SECONDS },
    );
    task = outcome.task;
    mark(`main task ${task.state}`);
    expect(outcome.stateAtOutage).toBe('SENDING');
    expect(task.state).toBe('COMPLETED');
    expect(task.id).toBe(mainTaskId);
    expect(sentAtKill).toBeLessThan(keptByTruth.length / 2); // mid-send: most of it went out after the kills
    expect(task.report.kept).toBe(keptByTruth.length);
    const survivors = THREE_SCHEDULERS.filter((id) => id !== killedScheduler);
    expect(cluster.processes.some((p) => survivors.includes(p.id) && adoptedATask(p.output))).toBe(true);

    // The killed executor comes back: its records and offline lists are on its disk alone.
    await cluster.start('executor', killedExecutor);
    await atTheLimit(droppedAtLogin, 1_000_003);
    await cluster.publishOnline(Uint32Array.from([...loggedIn, ...droppedAtLogin]));
    // Settled: every login pushed at the webhook, and the funnel counts as many drops as the test made (each
    // recipient once, even one queued on both executors; checked against the answers below).
    // The pushes first (cheap to watch), before the expiry; then the funnel, which after a failover merges the
    // executors' outcomes by uin and takes seconds a read at this size (docs/recipient-truth.md): one read a check.
    // Until shortly before the expiry: the restarted executor opens its stores and joins the presence agent's
    // logins on a loaded 2-core host in tens of seconds; a push after the expiry would be a drop, not a wait.
    await waitFor(async () => loggedIn.every((uin) => pushedTo(task.id).atLogin.has(uin)), {
      timeoutMs: Math.max(10_000, task.expiresAt - Date.now() - 10_000),
      intervalMs: 500,
      message: 'every login pushed at the webhook',
    }).catch((error: unknown) => {
      const missing = loggedIn.filter((uin) => !pushedTo(task.id).atLogin.has(uin));
      throw new Error(
        `${missing.length} of ${loggedIn.length} logins not pushed (first ${missing.slice(0, 5).join(', ')}): ${String(error)}\n${cluster.logs()}`,
        { cause: error },
      );
    });
    mark('logins pushed');
    expect(Date.now()).toBeLessThan(task.expiresAt); // the logins were before the expiry
    let counts: unknown[] = [];
    await waitFor(
      async () => {
        const stages = (await api<{ stages: FunnelStage[] }>(cluster, `/api/v1/tasks/${task.id}/funnel`)).stages;
        const count = (stage: string, why?: string) =>
          stages.find((s) => s.stage === stage && (why === undefined || s.why === why))?.count;
        counts = [count('delivered_at_login'), count('dropped_at_login', 'over_frequency')];
        return Number(counts[1]) >= droppedAtLogin.length;
      },
      { timeoutMs: 600_000, intervalMs: 500, message: 'the funnel counts the drops at login' },
    ).catch((error: unknown) => {
      // Said as things stand at the deadline, not as they were when the wait began.
      throw new Error(
        `the funnel counts ${JSON.stringify(counts)} of ${droppedAtLogin.length} dropped at login (${String(error)}; last error: ${String((error as { cause?: unknown }).cause)})\n${cluster.logs()}`,
        { cause: error },
      );
    });
    loginFunnel = { deliveredAtLogin: counts[0], droppedAtLogin: counts[1] };
    mark('logins settled');

    // Every answer the expiry cannot change (all but the offline recipients who never logged in), asked while the
    // expiry is awaited; the others once it passed (the next test), with the logins asked again.
    await askAll(Array.from(distinct.filter((uin) => !expiresWithTheTask(uin))), 'before the expiry');

    // The expiry: a never-logged-in offline recipient is answered expired once it passed.
    const neverLoggedIn = offlineKept.find((uin) => !isLoggedIn.has(uin) && !isDropped.has(uin))!;
    await waitFor(async () => (await lookup(cluster, task.id, neverLoggedIn)).then?.outcome === 'expired', {
      timeoutMs: TTL_SECONDS * 1000 + 30_000,
      intervalMs: 500,
      message: 'the task never expired',
    });
    mark('expired');
    settled = true;
    process.stdout.write(
      `recipient truth through failover: killed ${killedExecutor} and ${killedScheduler} after ${sentAtKill} of ${keptByTruth.length}\n`,
    );
  });

  it('answers each of the 10^5 recipients as the truth says', async () => {
    expect(settled).toBe(true);
    expect(distinct.length).toBe(100_000);
    const executors = cluster.ids('executor');
    const beforeExpiry = new Map(answers);
    await askAll(
      Array.from(distinct.filter((uin) => expiresWithTheTask(uin) || isLoggedIn.has(uin) || isDropped.has(uin))),
      'after the expiry',
    );
    // A login's answer does not change with the expiry: asked on both sides of it, the same.
    const changed = [...isLoggedIn, ...isDropped].filter(
      (uin) => JSON.stringify(beforeExpiry.get(uin)) !== JSON.stringify(answers.get(uin)),
    );
    expect({
      changed: changed.slice(0, 5).map((uin) => [beforeExpiry.get(uin), answers.get(uin)]),
      hostsDown: changed.length > 0 ? hostsDown() : [],
    }).toEqual({ changed: [], hostsDown: [] });
    expect(answers.size).toBe(distinct.length);
    const wrong: unknown[] = [];
    const byFate = new Map<string, number>();
    for (const answer of answers.values()) {
      const truth = truthOf(answer.uin);
      const got = expectedRow(answer);
      const key = `${truth.fate}${truth.detail === '' ? '' : ` ${truth.detail}`}`;
      byFate.set(key, (byFate.get(key) ?? 0) + 1);
      const ok =
        got.fate === truth.fate &&
        got.detail === truth.detail &&
        (answer.duplicateCopiesRemoved ?? 0) === copies.get(answer.uin)! - 1 &&
        (got.executor === '' || executors.includes(got.executor));
      if (!ok) wrong.push({ truth, answer });
    }
    expect({ wrong: wrong.slice(0, 5), hostsDown: wrong.length > 0 ? hostsDown() : [] }).toEqual({
      wrong: [],
      hostsDown: [],
    });
    expect(wrong.length).toBe(0);
    // Every fate the issue names is here, and in numbers.
    for (const fate of [
      'removed blacklisted',
      'removed already_sent',
      'removed over_frequency',
      'delivered_online',
      'rejected unregistered',
      'rejected bad.token',
      'queued_offline delivered_at_login',
      'queued_offline dropped_at_login: over_frequency',
      'queued_offline expired',
    ])
      expect({ fate, enough: (byFate.get(fate) ?? 0) >= 50 }).toEqual({ fate, enough: true });
    expect([...copies.values()].filter((n) => n > 1).length).toBeGreaterThan(1_000);
    // The funnel counts the offline recipients as the answers do, each once.
    const stages = (await api<{ stages: FunnelStage[] }>(cluster, `/api/v1/tasks/${task.id}/funnel`)).stages;
    const stage = (name: string, why?: string) =>
      stages.find((s) => s.stage === name && s.of === 'queued_offline' && (why === undefined || s.why === why))?.count;
    expect({
      deliveredAtLogin: stage('delivered_at_login'),
      droppedOverFrequency: stage('dropped_at_login', 'over_frequency'),
      expired: stage('expired'),
    }).toEqual({
      deliveredAtLogin: byFate.get('queued_offline delivered_at_login'),
      droppedOverFrequency: byFate.get('queued_offline dropped_at_login: over_frequency'),
      expired: byFate.get('queued_offline expired'),
    });
    process.stdout.write(
      `recipient truth through failover: ${JSON.stringify(Object.fromEntries(byFate))}; funnel at login ${JSON.stringify(loginFunnel)}\n`,
    );

    // At the webhook: every online kept recipient at least once, nobody else; logins pushed at login.
    const onlineKept = keptByTruth.filter((uin) => isOnline.has(uin));
    const { online: pushedOnline, atLogin: pushedAtLogin } = pushedTo(task.id);
    expect(Array.from(onlineKept.filter((uin) => !pushedOnline.has(uin)).slice(0, 5))).toEqual([]);
    expect(pushedOnline.size).toBe(onlineKept.length);
    expect(Array.from(loggedIn.filter((uin) => !pushedAtLogin.has(uin)))).toEqual([]);
    expect([...pushedAtLogin].filter((uin) => !isLoggedIn.has(uin))).toEqual([]);
    const repeats = [...pushedOnline.values()].reduce((a, n) => a + n - 1, 0);
    process.stdout.write(`recipient truth through failover: ${repeats} repeated online pushes (at least once)\n`);
  });

  it('exports exactly one CSV row per distinct recipient, each the answer', async () => {
    expect(settled).toBe(true);
    const exportStarted = performance.now();
    const rows = await reportRows(cluster, task.id);
    mark(`report of ${rows.length} rows in ${(performance.now() - exportStarted).toFixed(0)} ms`);
    expect(rows.length).toBe(100_000);
    expect(rows.map((r) => r.uin)).toEqual([...distinct]);
    const disagree = rows.filter((r) => {
      const { row: _row, ...cells } = r;
      return JSON.stringify(cells) !== JSON.stringify(expectedRow(answers.get(r.uin)!));
    });
    expect(disagree.slice(0, 5).map((r) => ({ row: r.row, answer: answers.get(r.uin) }))).toEqual([]);
    process.stdout.write(`recipient truth through failover: ${timings.join('; ')}\n`);
  });
});
