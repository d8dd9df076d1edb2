/**
 * GET /api/v1/tasks/:id/progress over real HTTP on a real Level store: the
 * curve the owner wrote, the rate and ETA while it sends, the end of the
 * curve at the report for a finished task, why a queued task waits, and the
 * task's access rules (another account's operator gets 404).
 */
import type { Task } from '@herald/core/task';
import { openTestAccess, type TestAccess } from '../access/test-access.test-util';
import { startTestServer, type TestServer } from '../access/test-server.test-util';

const T0 = 1_800_000_000_000;
let server: TestServer;
let tokens: TestAccess;

beforeEach(async () => {
  tokens = await openTestAccess();
  server = await startTestServer({ access: tokens.access });
});
afterEach(async () => {
  await server.close();
  await tokens.close();
});

async function task(accountId = 'acme'): Promise<Task> {
  const created = await server.store.createTask(
    {
      accountId,
      listId: 'l_1',
      content: { body: 'x' },
      contentCrc: 1,
      priority: 'normal',
      sendAt: T0,
      expiresAt: T0 + 3_600_000,
      listCount: 100_000,
    },
    T0,
  );
  return server.store.claimTask(created.id, 's1', T0);
}

async function sending(t: Task): Promise<Task> {
  let at = t;
  for (const event of ['enqueue', 'admit'] as const)
    at = await server.store.transitionTask(at.id, { epoch: at.epoch }, event, {}, T0);
  at = await server.store.transitionTask(
    at.id,
    { epoch: at.epoch },
    'preprocessed',
    { filteredListId: `f_${at.id}`, report: { total: 100_000, kept: 100_000, units: 1 } },
    T0,
  );
  return server.store.transitionTask(at.id, { epoch: at.epoch }, 'dispatched', {}, T0);
}

const curve = (points: [number, number][]) => ({
  history: { intervalMs: 1000, samples: points.map(([s, confirmed]) => ({ at: T0 + s * 1000, confirmed })) },
  waiting: null,
  updatedAt: T0,
});

const progressOf = (id: number, token = tokens.adminToken) =>
  server.call(token, { method: 'GET', path: `/api/v1/tasks/${id}/progress` });

it("answers a sending task's curve, its rate over the last 10 s and the ETA from it", async () => {
  const t = await sending(await task());
  await server.store.putProgress(
    t.id,
    { epoch: t.epoch },
    curve([
      [0, 0],
      [10, 10_000],
      [20, 40_000],
    ]),
  );
  const answer = await progressOf(t.id);
  expect(answer.status).toBe(200);
  expect(answer.body).toMatchObject({
    taskId: t.id,
    state: 'SENDING',
    total: 100_000,
    recorded: true,
    ratePerSecond: 3_000,
    etaAt: T0 + 40_000,
    waiting: null,
  });
  expect(answer.body.samples).toHaveLength(3);
});

it("ends a finished task's curve at its report, with no rate and no ETA", async () => {
  const t = await sending(await task());
  await server.store.putProgress(
    t.id,
    { epoch: t.epoch },
    curve([
      [0, 0],
      [10, 60_000],
    ]),
  );
  await server.store.transitionTask(
    t.id,
    { epoch: t.epoch },
    'complete',
    { report: { delivered: 70_000, offline: 30_000 } },
    T0 + 15_000,
  );
  const { body } = await progressOf(t.id);
  expect(body).toMatchObject({ state: 'COMPLETED', confirmed: 100_000, ratePerSecond: 0, etaAt: null });
  expect(body.samples).toEqual([
    { at: T0, confirmed: 0 },
    { at: T0 + 10_000, confirmed: 60_000 },
    { at: T0 + 15_000, confirmed: 100_000 },
  ]);
});

it('says why a queued task waits, and says when no curve was kept', async () => {
  const t = await server.store.transitionTask((await task()).id, { epoch: 1 }, 'enqueue', {}, T0);
  expect((await progressOf(t.id)).body).toMatchObject({ recorded: false, samples: [], total: null, waiting: null });
  const waiting = { reason: 'sender_slots' as const, slots: 4, inUse: 4, heldBy: [12, 15], ahead: 0, since: T0 };
  await server.store.putProgress(t.id, { epoch: t.epoch }, { ...curve([]), waiting });
  expect((await progressOf(t.id)).body.waiting).toEqual({
    ...waiting,
    message: 'waiting for a sender slot: 4 of 4 in use by tasks 12, 15, …',
  });
});

it("follows the task's access rules: another account's operator gets 404, a bad id 400", async () => {
  const t = await task('acme');
  const other = await tokens.token('operator', ['globex']);
  const own = await tokens.token('operator', ['acme']);
  const refused = await progressOf(t.id, other);
  expect([refused.status, refused.body.error?.code]).toEqual([404, 'TASK_NOT_FOUND']);
  expect((await progressOf(t.id, own)).status).toBe(200);
  expect((await progressOf(987_654)).status).toBe(404);
  const bad = await server.call(tokens.adminToken, { method: 'GET', path: '/api/v1/tasks/abc/progress' });
  expect([bad.status, bad.body.error?.code]).toEqual([400, 'VALIDATION_FAILED']);
});

it("keeps a sending task's curve current between the scheduler's writes, from its report", async () => {
  const t = await sending(await task());
  await server.store.putProgress(
    t.id,
    { epoch: t.epoch },
    curve([
      [0, 0],
      [10, 10_000],
    ]),
  );
  await server.store.updateTask(
    t.id,
    { epoch: t.epoch },
    { report: { delivered: 15_000, offline: 5_000 } },
    T0 + 14_000,
  );
  const { body } = await progressOf(t.id);
  expect(body.samples).toEqual([
    { at: T0, confirmed: 0 },
    { at: T0 + 10_000, confirmed: 10_000 },
    { at: T0 + 14_000, confirmed: 20_000 },
  ]);
  // The last 10 s reach back past the point at 10 s: measured from the first point, 20,000 over 14 s.
  expect(body).toMatchObject({ confirmed: 20_000, ratePerSecond: 1_429 });
});
