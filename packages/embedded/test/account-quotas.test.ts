import type { CampaignFiring } from '@herald/core/campaign';
import type { ListMeta, Task } from '@herald/core/task';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import {
  authHeaders,
  makeTempDir,
  TEST_AUTH_OPTIONS,
  TEST_CAMPAIGN_OPTIONS,
  TEST_TASK_OPTIONS,
  waitFor,
  type TempDir,
} from '@herald/testing';
import { listBytes } from './helpers';

/**
 * B-side quotas wired in the embedded profile (docs/account-quotas.md): the
 * API refuses the broadcast over an account's daily quota, the embedded
 * controller records the campaign firing over it as missed, and the limits
 * route shows the day's usage.
 */
describe('account quotas (embedded)', () => {
  let dir: TempDir;
  let cluster: EmbeddedCluster;

  beforeEach(async () => {
    dir = await makeTempDir('herald-quotas-');
    // Real time, moved to a UTC noon: the test's two broadcasts never straddle the day's end.
    const shift = Date.parse('2030-01-01T12:00:00Z') - Date.now();
    cluster = await startEmbeddedCluster(
      {
        dataDir: dir.path,
        uinSpaceBits: 16,
        http: { port: 0 },
        auth: TEST_AUTH_OPTIONS,
        tasks: TEST_TASK_OPTIONS,
        campaigns: { ...TEST_CAMPAIGN_OPTIONS, scanIntervalMs: 200 },
        accounts: { defaultLimits: { dailyBroadcasts: 1 } },
      },
      { clock: { now: () => Date.now() + shift } },
    );
  });

  afterEach(async () => {
    await cluster.stop();
    await dir.remove();
  });

  async function api<T>(
    method: string,
    path: string,
    body?: unknown,
    contentType = 'application/json',
  ): Promise<{ status: number; body: T }> {
    const response = await fetch(cluster.url + path, {
      method,
      headers: { ...authHeaders(), ...(body === undefined ? {} : { 'content-type': contentType }) },
      ...(body === undefined ? {} : { body: body instanceof Uint8Array ? body : JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as T };
  }

  it('refuses the second broadcast of the day through the API and through a campaign', async () => {
    const list = await api<ListMeta>(
      'POST',
      '/api/v1/lists?accountId=acme',
      listBytes([3, 5, 8]),
      'application/octet-stream',
    );
    const broadcast = { accountId: 'acme', listId: list.body.id, content: { body: 'hello' } };
    expect((await api<Task>('POST', '/api/v1/tasks', broadcast)).status).toBe(201);
    const refused = await api<{ error: { code: string; details: Record<string, unknown> } }>(
      'POST',
      '/api/v1/tasks',
      broadcast,
    );
    expect(refused).toMatchObject({
      status: 422,
      body: { error: { code: 'ACCOUNT_QUOTA_EXCEEDED', details: { limit: 'dailyBroadcasts', max: 1, used: 1 } } },
    });

    // A campaign's template has no accountId (the campaign's is used): strict input refuses the field instead of dropping it.
    const { accountId: _accountId, ...template } = broadcast;
    const campaign = await api<{ id: number }>('POST', '/api/v1/campaigns', {
      accountId: 'acme',
      name: 'every second',
      cron: '* * * * * *',
      timeZone: 'UTC',
      template,
    });
    expect(campaign.status).toBe(201);
    let firings: CampaignFiring[] = [];
    await waitFor(
      async () => {
        firings = (await cluster.campaigns.listFirings(campaign.body.id)).firings;
        return firings.length > 0;
      },
      { timeoutMs: 20_000, message: 'the campaign did not fire' },
    );
    await api('POST', `/api/v1/campaigns/${campaign.body.id}/disable`);
    expect(firings[0]).toMatchObject({ outcome: 'missed', reason: 'quota_exceeded:dailyBroadcasts', taskId: null });
    expect((await cluster.store.listTasks({ accountId: 'acme' })).tasks).toHaveLength(1);
    expect((await api<{ usage: unknown }>('GET', '/api/v1/accounts/acme/limits')).body.usage).toEqual({
      broadcasts: 1,
      recipients: 3,
    });
  });
});
