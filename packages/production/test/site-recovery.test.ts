import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { complementRanges, mergeRanges, ReportsMismatchError, selectByRanges } from '@herald/core/recovery';
import { encodeRecipientList, ListFlags } from '@herald/core/recipient-list';
import { subtractSorted, uniqueSorted } from '@herald/core/uins';
import { TOPICS } from '@herald/core/ports';
import type { ListMeta, Task } from '@herald/core/task';
import { ListRepository, loadRecipientList, syntheticAudience, writeRecipientListFile } from '@herald/audience';
import { KafkaEventBus } from '@herald/events-kafka';
import { CONFIRMATIONS_IN_FLIGHT } from '@herald/executor';
import { readTaskReports, recoverTask, type OriginTask, type RecoverySummary } from '@herald/production';
import { makeTempDir, ProcessCluster, TEST_ADMIN_TOKEN, authHeaders, type TempDir, waitFor } from '@herald/testing';
import { actualOutcome, expectedOutcome } from './outcome';
import { startWithAudience, tearDown, uniqueNames } from './scenario';

/**
 * Cross-site recovery (docs/recovery.md) with real processes: two
 * independent clusters ("sites") with their own databases, znode roots and
 * topic prefixes share the Kafka-protocol broker and, as a file system, the
 * list storage. Every process of site A is killed with SIGKILL in the middle
 * of a broadcast; `herald recover` on site B reads site A's reports and
 * filtered list and runs the remainder. Together the two sites reached
 * exactly the expected recipients; a recipient reached by both can only be
 * in a batch site A had in hand (written, not yet reported) when it died.
 */
jest.setTimeout(300_000);

const BATCH = 1000;
const UNIT = 25_000;
/** Delivery records (8 bytes each) in site A's sink when it is killed: ~20k of ~88k online recipients. */
const DELIVERED_AT_KILL = 20_000;
/**
 * Site A's task is sent at this many recipients per second (docs/scheduling.md, "Pacing"): ~5 s for its
 * ~294,000 kept recipients, the kill after ~1 s. Unpaced, a quick machine sent them all between the check
 * that the kill is due and the kill itself (remainder 0).
 */
const SPEED = 60_000;
const SHAPE = { interfaces: 1, schedulers: 1, dispatchers: 1, executors: 2, controllers: 1 };
const FINAL = ['COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'];

async function api<T>(cluster: ProcessCluster, path: string, init?: RequestInit): Promise<T> {
  return (await (
    await fetch(cluster.url + path, { ...init, headers: { ...init?.headers, ...authHeaders() } })
  ).json()) as T;
}

/** a ∩ b for sorted distinct arrays. */
const intersect = (a: Uint32Array, b: Uint32Array) => subtractSorted(a.slice(), subtractSorted(a.slice(), b));

describe('cross-site recovery', () => {
  let dirA: TempDir;
  let dirB: TempDir;
  let siteA: ProcessCluster;
  let siteB: ProcessCluster;
  const namesA = uniqueNames('sitea');
  const namesB = uniqueNames('siteb');
  const audience = syntheticAudience({ recipients: 300_000, onlineFraction: 0.3, uinLimit: 2 ** 24, seed: 23 });
  // Account acme may set a speed: site A's task is paced (SPEED), so the kill lands mid-broadcast on any machine.
  const tiers = { dispatcher: { batchSize: BATCH, unitSize: UNIT }, accounts: { defaultLimits: { maxSpeed: SPEED } } };

  beforeAll(async () => {
    dirA = await makeTempDir('herald-site-a-');
    dirB = await makeTempDir('herald-site-b-');
    siteA = new ProcessCluster(dirA.path, SHAPE, namesA);
    siteB = new ProcessCluster(dirB.path, SHAPE, namesB);
    // Both sites see the same users online (one login service feeding both sites' presence topics).
    await startWithAudience(siteA, audience, tiers);
    await startWithAudience(siteB, audience, tiers);
  });

  afterAll(async () => {
    await tearDown(siteA, namesA, dirA);
    await tearDown(siteB, namesB, dirB);
  });

  it('runs the remainder of a broadcast whose whole site was killed, reaching everyone exactly once outside the batches in hand', async () => {
    const binary = { 'content-type': 'application/octet-stream' };
    await api(siteA, '/api/v1/blacklists/global', {
      method: 'PUT',
      headers: binary,
      body: encodeRecipientList(audience.blacklist),
    });
    const list = await api<ListMeta>(siteA, '/api/v1/lists?accountId=acme', {
      method: 'POST',
      headers: binary,
      body: encodeRecipientList(audience.list),
    });
    const created = await api<Task>(siteA, '/api/v1/tasks', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ accountId: 'acme', listId: list.id, content: { body: 'site recovery' }, speed: SPEED }),
    });
    // Killed once the delivery files hold DELIVERED_AT_KILL records (~a fifth of the way): the task's own
    // progress shows up in the API too late to land the kill mid-broadcast every time.
    const deliveryFiles = siteA
      .ids('executor')
      .map((id) => join(dirA.path, 'data', 'deliveries', id, `task-${created.id}.deliveries`));
    await waitFor(
      async () => {
        const sizes = await Promise.all(
          deliveryFiles.map((f) =>
            stat(f).then(
              (s) => s.size,
              () => 0,
            ),
          ),
        );
        return sizes.reduce((a, b) => a + b, 0) >= DELIVERED_AT_KILL * 8;
      },
      { timeoutMs: 60_000, intervalMs: 5, message: `site A did not start delivering\n${siteA.logs()}` },
    );
    const taskA = await api<Task>(siteA, `/api/v1/tasks/${created.id}`);
    expect(taskA.state).toBe('SENDING');

    // The whole site goes: every process at once, no chance to finish a batch or report it.
    await Promise.all(siteA.processes.map((p) => siteA.stop(p, 'SIGKILL')));

    const output = await siteB.run([
      'recover',
      '--task',
      String(created.id),
      '--config',
      siteB.configFile,
      '--from-config',
      siteA.configFile,
      '--token',
      TEST_ADMIN_TOKEN,
    ]);
    const summary = JSON.parse(/^herald recover: summary (.*)$/m.exec(output)![1]!) as RecoverySummary;
    const { kept, online, offline } = expectedOutcome(audience);
    expect(summary).toMatchObject({
      originTaskId: created.id,
      listId: `f_${created.id}`,
      listSource: 'filtered',
      originFrom: 'store',
      listLength: kept.length,
    });
    // The kill landed mid-broadcast: some reached, some left.
    expect(summary.reached).toBeGreaterThan(0);
    expect(summary.remainder).toBeGreaterThan(0);
    expect(summary.reached + summary.remainder).toBe(kept.length);
    expect(summary.newTaskId).not.toBeNull();

    let taskB: Task | undefined;
    await waitFor(
      async () => {
        taskB = await api<Task>(siteB, `/api/v1/tasks/${summary.newTaskId}`);
        return FINAL.includes(taskB.state);
      },
      {
        timeoutMs: 180_000,
        intervalMs: 200,
        message: `site B's task did not finish (last: ${taskB?.state})\n${siteB.logs()}`,
      },
    );
    expect(taskB!.state).toBe('COMPLETED');
    expect(taskB!.report.kept).toBe(summary.remainder); // site B's filters kept the whole remainder

    const a = await actualOutcome(siteA, join(dirA.path, 'data'), created.id);
    const b = await actualOutcome(siteB, join(dirB.path, 'data'), summary.newTaskId!);

    // The union is exactly the expected set: nobody lost, nobody extra.
    const deliveredA = uniqueSorted(a.delivered.slice());
    const deliveredB = uniqueSorted(b.delivered.slice());
    const queuedA = uniqueSorted(a.queued.slice());
    const queuedB = uniqueSorted(b.queued.slice());
    expect(uniqueSorted(Uint32Array.from([...deliveredA, ...deliveredB]).sort())).toEqual(online);
    expect(uniqueSorted(Uint32Array.from([...queuedA, ...queuedB]).sort())).toEqual(offline);

    // Site B sent the remainder only: nothing inside a range site A reported.
    const filtered = await loadRecipientList(join(dirA.path, 'data', 'lists', `f_${created.id}.hrl`), {
      uinLimit: 2 ** 24,
    });
    const reports = await readTaskReports(
      { brokers: process.env.HERALD_TEST_KAFKA_BROKERS!.split(','), topicPrefix: namesA.topicPrefix },
      created.id,
    );
    const reported = mergeRanges(reports);
    expect(reported).toEqual(summary.reported);
    const unreported = selectByRanges(filtered, complementRanges(reported, filtered.length));
    expect(subtractSorted(uniqueSorted(Uint32Array.from([...deliveredB, ...queuedB]).sort()), unreported)).toHaveLength(
      0,
    );

    // What both sites reached was written by site A and not yet reported when it died: the batches in hand,
    // at most the one being written and the CONFIRMATIONS_IN_FLIGHT waiting for their confirmation per executor
    // (docs/delivery.md, "Confirming a batch"), well inside units x batch size.
    const twiceDelivered = intersect(deliveredA, deliveredB);
    const twiceQueued = intersect(queuedA, queuedB);
    const unreportedByA = intersect(uniqueSorted(Uint32Array.from([...deliveredA, ...queuedA]).sort()), unreported);
    expect(subtractSorted(twiceDelivered.slice(), unreportedByA)).toHaveLength(0);
    expect(subtractSorted(twiceQueued.slice(), unreportedByA)).toHaveLength(0);
    expect(unreportedByA.length).toBeLessThanOrEqual(SHAPE.executors * (CONFIRMATIONS_IN_FLIGHT + 1) * BATCH);
    // Within a site a repeat keeps its (task, uin) key; across sites it is (origin task, uin), site B's task
    // being recorded as recovered from it only in the recover summary (docs/recovery.md, limitations).
    const repeatsA = a.delivered.length - deliveredA.length;
    const repeatsB = b.delivered.length - deliveredB.length;
    expect(repeatsA + repeatsB).toBeLessThanOrEqual(Math.ceil(kept.length / UNIT) * BATCH);
    process.stdout.write(
      `site recovery: site A reported ${summary.reports} batches (${summary.reached} reached), remainder ${summary.remainder} run as site B task ${summary.newTaskId}; ` +
        `${unreportedByA.length} written by A but unreported; ${twiceDelivered.length} delivered and ${twiceQueued.length} queued by both sites; ${repeatsA + repeatsB} repeats within a site\n`,
    );
  });
});

/**
 * recoverTask's refusals and its empty remainder, against the test broker and
 * list files in a temporary directory. None of them reaches a site's API
 * (apiUrl points at a port nothing listens on, so a call there would fail).
 */
describe('recoverTask on reports that do not fit', () => {
  const names = uniqueNames('recovererr');
  const brokers = process.env.HERALD_TEST_KAFKA_BROKERS!.split(',');
  const origin: OriginTask = { accountId: 'acme', content: { body: 'x' }, priority: 'normal', source: 'options' };
  let dir: TempDir;
  let lists: ListRepository;
  const report = (taskId: number, from: number, to: number) => ({
    key: String(taskId),
    value: { taskId, unitNo: 0, from, to, delivered: to - from, offline: 0, executor: 'executor-1' },
    timestamp: Date.now(),
  });
  const recover = (taskId: number, extra: Partial<OriginTask> = {}) =>
    recoverTask({
      taskId,
      reports: { brokers, topicPrefix: names.topicPrefix },
      listsDir: lists.root,
      uinLimit: 2 ** 24,
      origin: { ...origin, ...extra },
      apiUrl: 'http://127.0.0.1:1',
    });

  beforeAll(async () => {
    dir = await makeTempDir('herald-recover-errors-');
    lists = new ListRepository(dir.path);
    const ten = Uint32Array.from({ length: 10 }, (_, i) => 100 + i);
    await writeRecipientListFile(lists.pathOf('f_1'), ten, ListFlags.SORTED | ListFlags.UNIQUE);
    await writeRecipientListFile(lists.pathOf('f_4'), ten, ListFlags.SORTED | ListFlags.UNIQUE);
    const bus = await KafkaEventBus.connect({ brokers, clientId: 'recover-errors', topicPrefix: names.topicPrefix });
    // Task 1: a report past its list's end. Task 2: reports but no filtered list. Task 4: everything, repeated and overlapping.
    await bus.publish(TOPICS.reports, [
      report(1, 0, 5),
      report(1, 5, 12),
      report(2, 0, 5),
      report(4, 4, 10),
      report(4, 0, 6),
      report(4, 0, 6),
    ]);
    await bus.close();
  });

  afterAll(async () => {
    await dir?.remove();
  });

  it('refuses a report past the end of the filtered list', async () => {
    const error = await recover(1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReportsMismatchError);
    expect((error as ReportsMismatchError).details).toMatchObject({ reason: 'past_list_end', to: 12, listLength: 10 });
  });

  it('refuses reports of a task without a filtered list', async () => {
    const error = await recover(2).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReportsMismatchError);
    expect((error as ReportsMismatchError).details).toMatchObject({ reason: 'no_filtered_list' });
  });

  it('says TASK_NOT_FOUND for a task with no list, no reports and no uploaded list, and LIST_NOT_FOUND when its uploaded list is missing', async () => {
    await expect(recover(3)).rejects.toMatchObject({ code: 'TASK_NOT_FOUND' });
    await expect(recover(3, { listId: 'l_missing' })).rejects.toMatchObject({ code: 'LIST_NOT_FOUND' });
  });

  it('creates nothing when the reports cover the whole list', async () => {
    const summary = await recover(4);
    expect(summary).toMatchObject({
      reports: 3,
      reported: [{ from: 0, to: 10 }],
      reached: 10,
      remainder: 0,
      newTaskId: null,
      newListId: null,
    });
  });
});
