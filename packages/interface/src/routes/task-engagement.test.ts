import { openTestAccess, type TestAccess } from '../access/test-access.test-util';
import { LIST_BYTES, startTestServer, type TestServer } from '../access/test-server.test-util';

/**
 * POST /api/v1/tasks/:id/engagement (docs/rollouts.md, "Click-through"):
 * running totals kept on the task's report, never lowered; a bad report is
 * 400 naming the field with nothing stored; another account's task is
 * TASK_NOT_FOUND, as for every task route.
 */
describe('POST /api/v1/tasks/:id/engagement', () => {
  let tokens: TestAccess;
  let server: TestServer;
  let taskId: number;

  beforeAll(async () => {
    tokens = await openTestAccess();
    server = await startTestServer({ access: tokens.access });
    const list = await server.call(tokens.adminToken, {
      method: 'POST',
      path: '/api/v1/lists?accountId=acme',
      body: LIST_BYTES,
    });
    const created = await server.call(tokens.adminToken, {
      method: 'POST',
      path: '/api/v1/tasks',
      body: {
        accountId: 'acme',
        listId: (list.body as { id: string }).id,
        content: { body: 'hi' },
        canary: {
          sample: '10%',
          holdSeconds: 60,
          thresholds: { rejectedRatio: 0.05, failedRatio: 0.05, minClickThrough: 0.02 },
        },
      },
    });
    expect(created.status).toBe(201);
    taskId = (created.body as { id: number }).id;
  });

  afterAll(async () => {
    await server?.close();
    await tokens?.close();
  });

  const report = (body: unknown, token = tokens.adminToken, id = taskId) =>
    server.call(token, { method: 'POST', path: `/api/v1/tasks/${id}/engagement`, body });

  it('keeps the thresholds minClickThrough on the canary', async () => {
    expect((await server.store.getTask(taskId))!.rollout!.canary!.thresholds.minClickThrough).toBe(0.02);
  });

  it('stores running totals on the report, and a smaller total never lowers them', async () => {
    const first = await report({ clicks: 40, opens: 300 });
    expect(first).toMatchObject({
      status: 200,
      body: { taskId, engagement: { clicks: 40, opens: 300, reportedAt: expect.any(Number) } },
    });
    const late = await report({ clicks: 35 });
    expect(late.body).toMatchObject({ engagement: { clicks: 40, opens: 300 } });
    await report({ clicks: 41 });
    expect((await server.store.getTask(taskId))!.report.engagement).toMatchObject({ clicks: 41, opens: 300 });
  });

  it.each([
    ['clicks', {}],
    ['clicks', { clicks: -1 }],
    ['clicks', { clicks: 2.5 }],
    ['opens', { clicks: 1, opens: 'many' }],
  ])('refuses a bad report with 400 naming %s, storing nothing', async (field, body) => {
    const before = (await server.store.getTask(taskId))!.report.engagement;
    const answer = await report(body);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(JSON.stringify(answer.body.error)).toContain(field);
    expect((await server.store.getTask(taskId))!.report.engagement).toEqual(before);
  });

  it('refuses an unknown field', async () => {
    const answer = await report({ clicks: 1, views: 3 });
    expect(answer.status).toBe(400);
  });

  it("answers TASK_NOT_FOUND for another account's task and a missing one", async () => {
    const other = await tokens.token('operator', ['other']);
    const answer = await report({ clicks: 1000 }, other);
    expect(answer.status).toBe(404);
    expect(answer.body.error?.code).toBe('TASK_NOT_FOUND');
    expect((await report({ clicks: 1 }, tokens.adminToken, 999_999)).status).toBe(404);
    expect((await server.store.getTask(taskId))!.report.engagement!.clicks).toBe(41);
  });
});
