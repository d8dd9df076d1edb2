import { openTestAccess, type TestAccess } from '../access/test-access.test-util';
import { LIST_BYTES, startTestServer, type TestServer } from '../access/test-server.test-util';

/**
 * Targeted tasks at creation (docs/api.md, POST /api/v1/tasks `targeting`):
 * the query is parsed when the task is created, so a malformed one is 400
 * QUERY_INVALID naming `targeting` with the position, and nothing is created,
 * reserved or handed to the scheduler.
 */
describe('POST /api/v1/tasks with targeting', () => {
  let tokens: TestAccess;
  let server: TestServer;
  let listId: string;

  beforeAll(async () => {
    tokens = await openTestAccess();
    server = await startTestServer({ access: tokens.access });
    const list = await server.call(tokens.adminToken, {
      method: 'POST',
      path: '/api/v1/lists?accountId=acme',
      body: LIST_BYTES,
    });
    listId = (list.body as { id: string }).id;
  });

  afterAll(async () => {
    await server?.close();
    await tokens?.close();
  });

  const create = (fields: Record<string, unknown>) =>
    server.call(tokens.adminToken, {
      method: 'POST',
      path: '/api/v1/tasks',
      body: { accountId: 'acme', listId, content: { body: 'hi' }, ...fields },
    });

  /** The same request with an Idempotency-Key header. */
  async function createWithKey(
    key: string,
    fields: Record<string, unknown>,
  ): Promise<{ status: number; body: { id?: number; error?: { code: string } } }> {
    const response = await fetch(`${server.base}/api/v1/tasks`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${tokens.adminToken}`,
        'idempotency-key': key,
      },
      body: JSON.stringify({ accountId: 'acme', listId, content: { body: 'hi' }, ...fields }),
    });
    return { status: response.status, body: (await response.json()) as { id?: number; error?: { code: string } } };
  }

  it('keeps the query on the task; a task without one has targeting null', async () => {
    const targeted = await create({ targeting: 'region:eu AND NOT tag:churned' });
    expect(targeted).toMatchObject({ status: 201, body: { targeting: 'region:eu AND NOT tag:churned' } });
    const id = (targeted.body as { id: number }).id;
    expect((await server.store.getTask(id))?.targeting).toBe('region:eu AND NOT tag:churned');
    expect(await create({})).toMatchObject({ status: 201, body: { targeting: null } });
  });

  it('answers 400 QUERY_INVALID naming targeting with the position, and creates nothing', async () => {
    const sentBefore = server.sent.length;
    const tasksBefore = (await server.store.listTasks({ accountId: 'acme' })).tasks.length;
    for (const [targeting, position] of [
      ['region:eu AND', 13],
      ['colour:red', 0],
      ['', 0],
    ] as const) {
      const answer = await create({ targeting });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'QUERY_INVALID', details: { field: 'targeting', position } });
    }
    const notAString = await create({ targeting: { region: 'eu' } });
    expect(notAString.status).toBe(400);
    expect(notAString.body.error).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(server.sent.length).toBe(sentBefore);
    expect((await server.store.listTasks({ accountId: 'acme' })).tasks.length).toBe(tasksBefore);
  });

  it('treats another query under the same Idempotency-Key as another request', async () => {
    const first = await createWithKey('targeted-1', { targeting: 'tag:beta' });
    expect(first.status).toBe(201);
    expect(await createWithKey('targeted-1', { targeting: 'tag:beta' })).toMatchObject({
      status: 200,
      body: { id: first.body.id },
    });
    expect(await createWithKey('targeted-1', { targeting: 'tag:alpha' })).toMatchObject({
      status: 409,
      body: { error: { code: 'IDEMPOTENCY_KEY_REUSED' } },
    });
    expect(await createWithKey('targeted-1', {})).toMatchObject({
      status: 409,
      body: { error: { code: 'IDEMPOTENCY_KEY_REUSED' } },
    });
  });
});
