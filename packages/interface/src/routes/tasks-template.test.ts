import { LevelAttributeIndex, LevelFollowerStore } from '@herald/store-level';
import { makeTempDir, type TempDir } from '@herald/testing';
import { openTestAccess, type TestAccess } from '../access/test-access.test-util';
import { LIST_BYTES, startTestServer, type TestServer } from '../access/test-server.test-util';

/**
 * Personalised content at creation (docs/delivery.md, "Personalised
 * content"): a template is parsed when the task is created, so a bad one is
 * 422 TEMPLATE_INVALID naming the field and the position, and nothing is
 * created or handed to the scheduler.
 */
describe('POST /api/v1/tasks with a template', () => {
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

  const create = (content: Record<string, unknown>) =>
    server.call(tokens.adminToken, {
      method: 'POST',
      path: '/api/v1/tasks',
      body: { accountId: 'acme', listId, content },
    });

  it('creates a template task and keeps the flag', async () => {
    const answer = await create({ body: 'Hello {{region|default:"there"}}', title: 'For {{uin}}', template: true });
    expect(answer.status).toBe(201);
    expect((answer.body as { content: unknown }).content).toEqual({
      body: 'Hello {{region|default:"there"}}',
      title: 'For {{uin}}',
      template: true,
    });
  });

  it('answers 422 TEMPLATE_INVALID with the field and position, and creates nothing', async () => {
    const sentBefore = server.sent.length;
    for (const [content, field, position] of [
      [{ body: 'Hello {{name}}', template: true }, 'content.body', 8],
      [{ body: 'ok', title: 'Hi {{region|default:there}}', template: true }, 'content.title', 20],
    ] as const) {
      const answer = await create(content);
      expect(answer.status).toBe(422);
      expect(answer.body.error).toMatchObject({ code: 'TEMPLATE_INVALID', details: { field, position } });
      expect(answer.body.error?.message).toContain(`${field} template, position ${position}`);
    }
    expect(server.sent.length).toBe(sentBefore);
  });

  it('sends a text with braces as written when template is absent or false', async () => {
    for (const template of [undefined, false]) {
      const answer = await create({ body: 'Hello {{name}}', ...(template === undefined ? {} : { template }) });
      expect(answer.status).toBe(201);
      expect((answer.body as { content: unknown }).content).toEqual({ body: 'Hello {{name}}' });
    }
  });
});

describe('GET /api/v1/templates/preview', () => {
  let tokens: TestAccess;
  let server: TestServer;
  let dir: TempDir;
  let attributes: LevelAttributeIndex;
  let followers: LevelFollowerStore;

  beforeAll(async () => {
    dir = await makeTempDir('herald-template-preview-');
    attributes = await LevelAttributeIndex.open(`${dir.path}/attributes`);
    followers = await LevelFollowerStore.open(`${dir.path}/followers`);
    await attributes.putUsers([{ uin: 7, region: 'gd', tags: ['vip'] }]);
    tokens = await openTestAccess();
    server = await startTestServer({ access: tokens.access, audiences: { followers, attributes } });
  });

  afterAll(async () => {
    await server?.close();
    await tokens?.close();
    await attributes?.close();
    await followers?.close();
    await dir?.remove();
  });

  const preview = (token: string, body: string, uin: number, title?: string) =>
    server.call(token, {
      method: 'GET',
      path: `/api/v1/templates/preview?uin=${uin}&body=${encodeURIComponent(body)}${title === undefined ? '' : `&title=${encodeURIComponent(title)}`}`,
    });

  it("renders an admin's preview from the user's attributes, and says when the store has no such user", async () => {
    expect((await preview(tokens.adminToken, 'Hi {{region|default:"you"}} {{tags}}', 7, 'For {{uin}}')).body).toEqual({
      uin: 7,
      content: { body: 'Hi gd vip', title: 'For 7' },
      attributes: 'store',
    });
    expect((await preview(tokens.adminToken, 'Hi {{region|default:"you"}}', 8)).body).toEqual({
      uin: 8,
      content: { body: 'Hi you' },
      attributes: 'none',
    });
  });

  it("renders an operator's preview with the defaults: no user's attributes through it", async () => {
    const operator = await tokens.token('operator', ['acme']);
    expect((await preview(operator, 'Hi {{region|default:"you"}} ({{uin}})', 7)).body).toEqual({
      uin: 7,
      content: { body: 'Hi you (7)' },
      attributes: 'defaults',
    });
  });

  it('answers a bad template with 422 TEMPLATE_INVALID and its position', async () => {
    const answer = await preview(tokens.adminToken, 'Hi {{region|default:you}}', 7);
    expect(answer.status).toBe(422);
    expect(answer.body.error).toMatchObject({
      code: 'TEMPLATE_INVALID',
      details: { field: 'content.body', position: 20 },
    });
  });
});
