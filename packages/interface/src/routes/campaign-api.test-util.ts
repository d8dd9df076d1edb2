import type { AddressInfo } from 'node:net';
import { ListRepository } from '@herald/audience';
import { compileConfig } from '@herald/core/config';
import { noopLogger } from '@herald/core/ports';
import { LevelCampaignStore, LevelTaskStore } from '@herald/store-level';
import { makeTempDir, type TempDir } from '@herald/testing';
import type { PushChannel } from '@herald/transport';
import type { FastifyInstance } from 'fastify';
import { openTestAccess, type TestAccess } from '../access/test-access.test-util';
import { createApiServer } from '../server';

/** What a campaign-route test works with; the stores are fresh for every test. */
export interface CampaignApi {
  readonly tasks: LevelTaskStore;
  readonly campaigns: LevelCampaignStore;
  readonly tokens: TestAccess;
  /** The API's clock, epoch ms: `start` at every test's beginning; a test may move it. */
  now: number;
  /** One request over real HTTP (as the admin unless `token` says otherwise); the answer's status and JSON body. */
  call(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    payload?: unknown,
    token?: string,
    extraHeaders?: Record<string, string>,
  ): Promise<{ status: number; body: Record<string, any> | undefined }>;
}

/**
 * Test helper (excluded from the build): registers jest hooks that start, for every test, the API server over
 * LevelTaskStore and LevelCampaignStore in a temp dir (lists `l_acme` and `l_other` of accounts acme and other
 * stored, a clock at `start` that a test may move, an admin token), and stop it after.
 */
export function useCampaignApi(tempPrefix: string, start: number): CampaignApi {
  let dir: TempDir;
  let app: FastifyInstance;
  let base = '';
  const api = {} as { -readonly [K in keyof CampaignApi]: CampaignApi[K] };

  beforeEach(async () => {
    api.now = start;
    dir = await makeTempDir(tempPrefix);
    api.tasks = await LevelTaskStore.open(`${dir.path}/tasks`);
    api.campaigns = await LevelCampaignStore.open(`${dir.path}/campaigns`);
    api.tokens = await openTestAccess();
    for (const [id, accountId] of [
      ['l_acme', 'acme'],
      ['l_other', 'other'],
    ] as const) {
      await api.tasks.putList({
        id,
        accountId,
        count: 10,
        checksum: 1,
        sorted: true,
        unique: true,
        bytes: 80,
        createdAt: 0,
      });
    }
    app = createApiServer({
      config: compileConfig({ tasks: { maxContentChars: 100 } }),
      store: api.tasks,
      access: api.tokens.access,
      campaigns: api.campaigns,
      lists: new ListRepository(`${dir.path}/lists`),
      toScheduler: { send: async () => undefined, close: () => undefined } as unknown as PushChannel,
      clock: { now: () => api.now },
      logger: noopLogger,
      blacklistIds: { global: 'b_global', forAccount: (accountId) => `b_${accountId}` },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });

  afterEach(async () => {
    await app.close();
    await api.tokens.close();
    await api.campaigns.close();
    await api.tasks.close();
    await dir.remove();
  });

  api.call = async (method, url, payload, token = api.tokens.adminToken, extraHeaders = {}) => {
    const headers: Record<string, string> = { ...extraHeaders, authorization: `Bearer ${token}` };
    if (payload !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${base}${url}`, {
      method,
      headers,
      ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as Record<string, any>) };
  };
  return api;
}
