/**
 * DELETE /api/v1/tasks/:id/records over real HTTP, on a real Level task
 * store and delivery-record log: what it removes and counts, that it is
 * idempotent, that only a task that is over is purged (409 naming the
 * state), the task's access rules, strict input, that the recipient lookup
 * then answers `unknown` ("confirmed without a delivery record") while the
 * task itself stays as it was, and the 503 of executors that did not answer.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { removedPathOf, writeRecipientListFile } from '@herald/audience';
import { encodeRemovedSets, HostsUnreachable, onlineBitsOf, PurgeIncomplete } from '@herald/core/fate';
import type { DeliveryRecordLog } from '@herald/core/ports';
import { ListFlags } from '@herald/core/recipient-list';
import type { Task, TaskEvent } from '@herald/core/task';
import { LevelDeliveryRecordLog } from '@herald/store-level';
import { makeTempDir, type TempDir } from '@herald/testing';
import { openTestAccess, type TestAccess } from '../access/test-access.test-util';
import { startTestServer, type Answer, type TestServer } from '../access/test-server.test-util';

const T0 = 1_800_000_000_000;
/** Every task's filtered list: 10 and 40 queued offline, 20 and 30 delivered online; 10 then delivered at login. */
const AUDIENCE = Uint32Array.of(10, 20, 30, 40);

let dir: TempDir;
let records: LevelDeliveryRecordLog;
let server: TestServer;
let tokens: TestAccess;

beforeEach(async () => {
  dir = await makeTempDir('herald-task-records-');
  records = await LevelDeliveryRecordLog.open(`${dir.path}/records`);
  tokens = await openTestAccess();
  server = await startTestServer({ access: tokens.access, deliveryRecords: records });
});
afterEach(async () => {
  await server.close();
  await tokens.close();
  await records.close();
  await dir.remove();
});

/** A task of `accountId` just created: CREATED. */
function createdTask(accountId = 'acme', on: TestServer = server): Promise<Task> {
  return on.store.createTask(
    {
      accountId,
      listId: 'l_1',
      content: { body: 'x' },
      contentCrc: 1,
      priority: 'normal',
      sendAt: T0,
      expiresAt: T0 + 3_600_000,
      listCount: AUDIENCE.length,
    },
    T0,
  );
}

/** A task of `accountId` that sent its whole list (one unit, checkpoint at its end) with its records, then `end`ed. */
async function sentTask(end?: TaskEvent, accountId = 'acme', on: TestServer = server): Promise<Task> {
  const created = await createdTask(accountId, on);
  let task = await on.store.claimTask(created.id, 's1', T0);
  const to = (event: TaskEvent, patch = {}) =>
    on.store.transitionTask(task.id, { epoch: task.epoch }, event, patch, T0);
  task = await to('enqueue');
  task = await to('admit');
  const filteredListId = `f_${task.id}`;
  task = await to('preprocessed', { filteredListId, report: { total: 4, kept: 4, units: 1 } });
  await mkdir(dirname(on.lists.pathOf(filteredListId)), { recursive: true });
  await writeRecipientListFile(on.lists.pathOf(filteredListId), AUDIENCE, ListFlags.SORTED | ListFlags.UNIQUE);
  await writeFile(removedPathOf(on.lists.pathOf(filteredListId)), encodeRemovedSets([], true));
  task = await to('dispatched');
  const fence = { epoch: task.epoch };
  await on.store.putUnits(task.id, fence, [{ unitNo: 0, start: 0, end: 4, executorId: 'e1' }], T0);
  await records.recordBatch({
    taskId: task.id,
    from: 0,
    count: 4,
    online: onlineBitsOf(AUDIENCE, Uint32Array.of(20, 30)),
    executor: 'e1',
    at: T0 + 10,
  });
  await on.store.checkpointUnit(task.id, 0, fence, { from: 0, to: 4, delivered: 2, offline: 2 }, T0 + 10);
  await records.recordLogins([{ taskId: task.id, uin: 10, outcome: 'delivered', at: T0 + 20 }]);
  return end === undefined ? task : to(end);
}

const purge = (id: number | string, token = tokens.adminToken, suffix = '', body?: unknown) =>
  server.call(token, { method: 'DELETE', path: `/api/v1/tasks/${id}/records${suffix}`, body });
const fateOf = async (id: number, uin: number) =>
  (await server.call(tokens.adminToken, { method: 'GET', path: `/api/v1/tasks/${id}/recipients/${uin}` })).body;

/** Everything the task store holds of the task: none of it may change with a purge. */
async function taskRows(id: number) {
  return {
    task: await server.store.getTask(id),
    units: await server.store.listUnits(id),
    progress: await server.store.getProgress(id),
  };
}

function expectError(answer: Answer, status: number, code: string): Record<string, unknown> {
  expect({ status: answer.status, code: answer.body.error?.code }).toEqual({ status, code });
  return answer.body.error!.details ?? {};
}

it("removes a finished task's records, answers what it removed, and zeros when asked again", async () => {
  const task = await sentTask('complete');
  const other = await sentTask('complete');
  expect(await fateOf(task.id, 20)).toMatchObject({ fate: 'delivered_online', executor: 'e1' });
  expect(await fateOf(task.id, 10)).toMatchObject({ fate: 'queued_offline', then: { outcome: 'delivered_at_login' } });
  const before = await taskRows(task.id);

  const first = await purge(task.id);
  expect({ status: first.status, body: first.body }).toEqual({
    status: 200,
    body: { taskId: task.id, batches: 1, logins: 1 },
  });
  const again = await purge(task.id);
  expect({ status: again.status, body: again.body }).toEqual({
    status: 200,
    body: { taskId: task.id, batches: 0, logins: 0 },
  });

  // As documented: a position its unit confirmed, with no record left, is unknown, never "not reached".
  for (const uin of [10, 20]) {
    const fate = await fateOf(task.id, uin);
    expect(fate).toMatchObject({ fate: 'unknown' });
    expect(fate.reason).toMatch(/^unit 0 confirmed this position without a delivery record \(.*purged\)$/);
  }
  expect(await records.loginCounts(task.id)).toEqual({ delivered: 0, expired: 0, over_frequency: 0 });
  // Nothing else of the task changed, and another task's records are untouched.
  expect(await taskRows(task.id)).toEqual(before);
  expect(await fateOf(other.id, 20)).toMatchObject({ fate: 'delivered_online' });
  expect(await records.loginOf(other.id, 10)).toMatchObject({ outcome: 'delivered' });
});

it.each(['cancel', 'fail', 'expire'] as const)('purges a task that ended by %s', async (end) => {
  const task = await sentTask(end);
  const answer = await purge(task.id);
  expect({ status: answer.status, body: answer.body }).toEqual({
    status: 200,
    body: { taskId: task.id, batches: 1, logins: 1 },
  });
});

it('refuses a task that is not over with 409 TASK_NOT_OVER naming its state, and removes nothing', async () => {
  const sending = await sentTask();
  const paused = await sentTask('pause');
  const created = await createdTask();
  for (const [task, state] of [
    [sending, 'SENDING'],
    [paused, 'PAUSED'],
    [created, 'CREATED'],
  ] as const) {
    const answer = await purge(task.id);
    expect(expectError(answer, 409, 'TASK_NOT_OVER')).toEqual({ field: 'id', taskId: task.id, state });
    expect(answer.body.error!.message).toContain(`task ${task.id} is ${state}`);
  }
  expect(await records.batchAt(sending.id, 0)).toBeDefined();
  expect(await records.loginOf(paused.id, 10)).toBeDefined();
});

it("follows the task's access rules: its account's operator may, another account's gets the 404 of a missing task", async () => {
  const task = await sentTask('complete', 'globex');
  const acmeOps = await tokens.token('operator', ['acme']);
  const globexOps = await tokens.token('operator', ['globex']);
  const foreign = await purge(task.id, acmeOps);
  const missing = await purge(999_999, acmeOps);
  expectError(foreign, 404, 'TASK_NOT_FOUND');
  expect(foreign.body.error!.message).toBe(`task ${task.id} does not exist`);
  expect(missing.body.error!.message).toBe('task 999999 does not exist');
  expect(await records.batchAt(task.id, 0)).toBeDefined();
  expect((await purge(task.id, globexOps)).body).toEqual({ taskId: task.id, batches: 1, logins: 1 });
  const audit = await tokens.access.listAudit({ accountId: 'globex' });
  expect(audit.entries.map((e) => [e.action, e.resource, e.status])).toEqual(
    expect.arrayContaining([
      ['DELETE /api/v1/tasks/:id/records', `task:${task.id}`, 404],
      ['DELETE /api/v1/tasks/:id/records', `task:${task.id}`, 200],
    ]),
  );
});

it('refuses a bad id, any query parameter and any body field with 400 naming it, and removes nothing', async () => {
  const task = await sentTask('complete');
  for (const [answer, field] of [
    [await purge('x'), 'id'],
    [await purge('0'), 'id'],
    [await purge('-1'), 'id'],
    [await purge(task.id, tokens.adminToken, '?all=true'), 'all'],
    [await purge(task.id, tokens.adminToken, '', { task: task.id }), 'task'],
  ] as const)
    expect(expectError(answer, 400, 'VALIDATION_FAILED')).toMatchObject({ field });
  expect(await records.batchAt(task.id, 0)).toBeDefined();
  // An empty JSON body is no field at all.
  expect((await purge(task.id, tokens.adminToken, '', {})).status).toBe(200);
});

describe('a purge some executors did not answer', () => {
  async function serverWith(purgeTask: DeliveryRecordLog['purgeTask']): Promise<TestServer> {
    const failing = Object.assign(Object.create(records) as DeliveryRecordLog, { purgeTask });
    return startTestServer({ access: tokens.access, deliveryRecords: failing });
  }

  it('answers 503 UNAVAILABLE naming the hosts and what the others removed', async () => {
    const other = await serverWith(async () => {
      throw new PurgeIncomplete(['executor-3', 'executor-2'], { batches: 7, logins: 2 });
    });
    try {
      const task = await sentTask('complete', 'acme', other);
      const answer = await other.call(tokens.adminToken, {
        method: 'DELETE',
        path: `/api/v1/tasks/${task.id}/records`,
      });
      expect(expectError(answer, 503, 'UNAVAILABLE')).toEqual({
        taskId: task.id,
        hosts: ['executor-2', 'executor-3'],
        purged: { batches: 7, logins: 2 },
      });
      expect(answer.body.error!.message).toBe(
        `task ${task.id}: hosts executor-2, executor-3 unreachable: their records of the task are not purged; ` +
          'the others removed 7 batch records and 2 login outcomes; purge again once they answer',
      );
    } finally {
      await other.close();
    }
  });

  it('says so when the log could not count what the others removed', async () => {
    const other = await serverWith(async () => {
      throw new HostsUnreachable(['executor-2']);
    });
    try {
      const task = await sentTask('complete', 'acme', other);
      const answer = await other.call(tokens.adminToken, {
        method: 'DELETE',
        path: `/api/v1/tasks/${task.id}/records`,
      });
      expect(expectError(answer, 503, 'UNAVAILABLE')).toMatchObject({ hosts: ['executor-2'], purged: null });
      expect(answer.body.error!.message).toContain('what the others removed was not counted');
    } finally {
      await other.close();
    }
  });
});

it('answers 404 NOT_FOUND, not a missing task, where the process keeps no delivery records', async () => {
  const bare = await startTestServer({ access: tokens.access });
  try {
    const task = await sentTask('complete', 'acme', bare);
    const answer = await bare.call(tokens.adminToken, { method: 'DELETE', path: `/api/v1/tasks/${task.id}/records` });
    expectError(answer, 404, 'NOT_FOUND');
    expect(answer.body.error!.message).toBe('this interface process keeps no delivery records to purge');
  } finally {
    await bare.close();
  }
});
