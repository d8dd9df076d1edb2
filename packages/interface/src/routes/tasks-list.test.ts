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

/** GET /api/v1/tasks?q=: the search box of the console's task list. */
describe('GET /api/v1/tasks search (q)', () => {
  let tokens: TestAccess;
  let server: TestServer;
  const ids: number[] = [];

  beforeAll(async () => {
    tokens = await openTestAccess();
    server = await startTestServer({ access: tokens.access });
    const made = [
      { accountId: 'acme', content: { title: 'Spring sale', body: 'Everything 50% off' } },
      { accountId: 'globex', content: { body: 'The SALE ends today' } },
      { accountId: 'acme', content: { title: 'News', body: 'Good morning' } },
    ];
    for (const input of made) ids.push((await server.store.createTask(newTask(input), 1)).id);
  });

  afterAll(async () => {
    await server?.close();
    await tokens?.close();
  });

  const search = async (query: string, token = tokens.adminToken) => {
    const answer = await server.call(token, { method: 'GET', path: `/api/v1/tasks?${query}` });
    return {
      status: answer.status,
      ids: ((answer.body.tasks ?? []) as { id: number }[]).map((t) => t.id),
      error: answer.body.error,
    };
  };

  it('finds title and body text ignoring case, with the other filters, and an id', async () => {
    expect((await search('q=sale')).ids).toEqual([ids[0], ids[1]]);
    expect((await search('q=SALE&order=desc')).ids).toEqual([ids[1], ids[0]]);
    expect((await search('q=sale&accountId=acme')).ids).toEqual([ids[0]]);
    expect((await search(`q=${encodeURIComponent('50%')}`)).ids).toEqual([ids[0]]);
    expect((await search(`q=${String(ids[2])}`)).ids).toEqual([ids[2]]);
    expect((await search('q=sale', await tokens.token('operator', ['globex']))).ids).toEqual([ids[1]]);
  });

  it('refuses an empty q or one over 200 characters, naming q', async () => {
    for (const q of ['', 'x'.repeat(201)]) {
      const bad = await search(`q=${q}`);
      expect(bad.status).toBe(400);
      expect(bad.error).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'q' } });
    }
    expect((await search(`q=${'x'.repeat(200)}`)).status).toBe(200);
  });
});
