import { openTestAccess, type TestAccess } from '../access/test-access.test-util';
import { LIST_BYTES, startTestServer, type TestServer } from '../access/test-server.test-util';

/**
 * Collapse keys at creation (docs/api.md, POST /api/v1/tasks `collapseKey`):
 * kept on the task; a bad one is 400 VALIDATION_FAILED naming `collapseKey`,
 * and nothing is created or handed to the scheduler.
 */
describe('POST /api/v1/tasks with collapseKey', () => {
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

  it('keeps the key on the task; a task without one has none', async () => {
    const keyed = await create({ collapseKey: 'match:1234.score' });
    expect(keyed).toMatchObject({ status: 201, body: { collapseKey: 'match:1234.score' } });
    const id = (keyed.body as { id: number }).id;
    expect((await server.store.getTask(id))?.collapseKey).toBe('match:1234.score');
    const plain = await create({});
    expect(plain.status).toBe(201);
    expect(plain.body).not.toHaveProperty('collapseKey');
  });

  it('answers 400 VALIDATION_FAILED naming collapseKey, and creates nothing', async () => {
    const sentBefore = server.sent.length;
    const tasksBefore = (await server.store.listTasks({ accountId: 'acme' })).tasks.length;
    for (const collapseKey of ['', 'x'.repeat(129), 'two words', 'naïve', 'a/b', 42, null, ['k']]) {
      const answer = await create({ collapseKey });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'collapseKey' } });
    }
    expect(server.sent.length).toBe(sentBefore);
    expect((await server.store.listTasks({ accountId: 'acme' })).tasks.length).toBe(tasksBefore);
  });
});
