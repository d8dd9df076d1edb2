import { newTask } from '@herald/testing';
import { openTestAccess, type TestAccess } from '../access/test-access.test-util';
import { startTestServer, type TestServer } from '../access/test-server.test-util';

/** GET /api/v1/tasks: newest first and the creation-time window (what the console's task list asks for). */
describe('GET /api/v1/tasks order and creation window', () => {
  let tokens: TestAccess;
  let server: TestServer;
  const T0 = Date.parse('2026-11-20T00:00:00Z');
  const DAY = 86_400_000;
  const ids: number[] = [];

  beforeAll(async () => {
    tokens = await openTestAccess();
    server = await startTestServer({ access: tokens.access });
    // Two tasks a day for three days, alternating accounts.
    for (let i = 0; i < 6; i++)
      ids.push(
        (
          await server.store.createTask(
            newTask({ accountId: i % 2 === 0 ? 'acme' : 'globex' }),
            T0 + Math.floor(i / 2) * DAY + i,
          )
        ).id,
      );
  });

  afterAll(async () => {
    await server?.close();
    await tokens?.close();
  });

  const list = async (query: string, token = tokens.adminToken) => {
    const answer = await server.call(token, { method: 'GET', path: `/api/v1/tasks?${query}` });
    return {
      status: answer.status,
      ids: ((answer.body.tasks ?? []) as { id: number }[]).map((t) => t.id),
      nextCursor: answer.body.nextCursor,
      error: answer.body.error,
    };
  };

  it('lists newest first, the cursor going down', async () => {
    const first = await list('order=desc&limit=4');
    expect(first).toMatchObject({ status: 200, ids: [...ids].reverse().slice(0, 4), nextCursor: ids[2] });
    expect(await list(`order=desc&limit=4&cursor=${String(first.nextCursor)}`)).toMatchObject({
      ids: [ids[1], ids[0]],
      nextCursor: null,
    });
    expect((await list('')).ids).toEqual(ids);
  });

  it('keeps the tasks created in [createdFrom, createdBefore), with the other filters and for an operator', async () => {
    const day2 = `createdFrom=${new Date(T0 + DAY).toISOString()}&createdBefore=${new Date(T0 + 2 * DAY).toISOString()}`;
    expect((await list(day2)).ids).toEqual([ids[2], ids[3]]);
    expect((await list(`${day2}&order=desc`)).ids).toEqual([ids[3], ids[2]]);
    expect((await list(`${day2}&accountId=acme`)).ids).toEqual([ids[2]]);
    expect(
      (
        await list(
          `createdFrom=${new Date(T0 + 2 * DAY).toISOString()}&order=desc`,
          await tokens.token('operator', ['globex']),
        )
      ).ids,
    ).toEqual([ids[5]]);
  });

  it('refuses a time that is not ISO 8601 on its field, and an unknown order', async () => {
    const bad = await list('createdFrom=yesterday');
    expect(bad.status).toBe(400);
    expect(bad.error).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'createdFrom' } });
    expect((await list('order=sideways')).status).toBe(400);
  });
});
