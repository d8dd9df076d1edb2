import { encodeRecipientList } from '@herald/core/recipient-list';
import { openTestAccess, type TestAccess } from '../access/test-access.test-util';
import { startTestServer, type TestServer } from '../access/test-server.test-util';

/**
 * Blacklists are stored as recipient lists (the global one as a list of the
 * reserved account 'global'), but they are the ids never to send to: no task
 * may use one as its audience, and no operator sees the global one.
 */
describe('blacklists are never audiences', () => {
  let tokens: TestAccess;
  let server: TestServer;

  beforeAll(async () => {
    tokens = await openTestAccess();
    server = await startTestServer({ access: tokens.access });
    for (const path of ['/api/v1/blacklists/global', '/api/v1/accounts/acme/blacklist']) {
      expect(
        (await server.call(tokens.adminToken, { method: 'PUT', path, body: encodeRecipientList([3, 5, 7]) })).status,
      ).toBe(200);
    }
  });

  afterAll(async () => {
    await server?.close();
    await tokens?.close();
  });

  const createFrom = (token: string, accountId: string, listId: string) =>
    server.call(token, {
      method: 'POST',
      path: '/api/v1/tasks',
      body: { accountId, listId, content: { body: 'to the blacklist?' } },
    });

  it('refuses a task on the global blacklist or an account blacklist, even from an admin, like a missing list', async () => {
    for (const [accountId, listId] of [
      ['global', 'b_global'],
      ['acme', 'b_acme'],
    ] as const) {
      const answer = await createFrom(tokens.adminToken, accountId, listId);
      expect(answer.status).toBe(404);
      expect(answer.body.error?.code).toBe('LIST_NOT_FOUND');
    }
    const operator = await tokens.token('operator', ['acme']);
    expect((await createFrom(operator, 'acme', 'b_acme')).body.error?.code).toBe('LIST_NOT_FOUND');
    expect(server.sent).toHaveLength(0);
  });

  it("hides the global blacklist from operators; the access store refuses a token naming 'global' even around the API", async () => {
    const operator = await tokens.token('operator', ['acme']);
    expect((await server.call(operator, { method: 'GET', path: '/api/v1/lists/b_global' })).body.error?.code).toBe(
      'LIST_NOT_FOUND',
    );
    expect((await server.call(tokens.adminToken, { method: 'GET', path: '/api/v1/lists/b_global' })).status).toBe(200);
    await expect(tokens.token('operator', ['global'])).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it("refuses to make an operator token for the reserved account 'global'", async () => {
    const answer = await server.call(tokens.adminToken, {
      method: 'POST',
      path: '/api/v1/tokens',
      body: { name: 'global ops', role: 'operator', accounts: ['global'] },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error?.code).toBe('VALIDATION_FAILED');
  });
});
