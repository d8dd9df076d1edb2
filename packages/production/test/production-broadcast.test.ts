import { join } from 'node:path';
import { encodeRecipientList } from '@herald/core/recipient-list';
import { TOPICS } from '@herald/core/ports';
import { uniqueSorted } from '@herald/core/uins';
import type { ListMeta, Task } from '@herald/core/task';
import { syntheticAudience } from '@herald/audience';
import { authHeaders, makeTempDir, ProcessCluster, type TempDir, waitFor } from '@herald/testing';
import { actualOutcome, expectedOutcome } from './outcome';
import { expectManagementLocked, startWithAudience, tearDown, uniqueNames } from './scenario';

/**
 * The foundation's end-to-end broadcast on the production profile: every tier
 * its own process, MariaDB, ZooKeeper, the Kafka-protocol broker, CURVE on
 * every tcp link. The file sinks must hold exactly the online kept recipients
 * and the offline lists exactly the rest.
 */
jest.setTimeout(240_000);

describe('production profile, end to end', () => {
  let dir: TempDir;
  let cluster: ProcessCluster;
  const names = uniqueNames('e2e');
  const { tag } = names;
  const audience = syntheticAudience({ recipients: 60_000, onlineFraction: 0.3, uinLimit: 2 ** 24, seed: 5 });
  const { kept, online, offline } = expectedOutcome(audience);
  /** The broadcast's task id, for the task-events test. */
  let broadcastId = 0;

  beforeAll(async () => {
    dir = await makeTempDir('herald-production-');
    cluster = new ProcessCluster(
      dir.path,
      { interfaces: 2, schedulers: 2, dispatchers: 2, executors: 2, controllers: 2 },
      names,
    );
    // Users online before the broadcast: login events on the presence topic.
    // 'club' is followers-only: its broadcasts pass the dispatcher's follower check (MySQL followers table).
    await startWithAudience(cluster, audience, { accounts: { followersOnly: ['club'] } });
  });

  afterAll(async () => {
    await tearDown(cluster, names, dir);
  });

  const post = async <T>(
    path: string,
    body: unknown,
    contentType = 'application/json',
  ): Promise<{ status: number; body: T }> => {
    const response = await fetch(cluster.url + path, {
      method: path.includes('blacklist') ? 'PUT' : 'POST',
      headers: { 'content-type': contentType, ...authHeaders() },
      body: contentType === 'application/json' ? JSON.stringify(body) : (body as Buffer),
    });
    return { status: response.status, body: (await response.json()) as T };
  };

  // First: the broadcast test below stops the executors to read their stores.
  it('serves campaigns: one created through an interface fires on the elected controller and its task completes', async () => {
    const list = await post<ListMeta>(
      '/api/v1/lists?accountId=acme',
      encodeRecipientList([11, 12, 13]),
      'application/octet-stream',
    );
    const campaign = await post<{ id: number }>('/api/v1/campaigns', {
      accountId: 'acme',
      name: 'every second',
      cron: '* * * * * *',
      timeZone: 'UTC',
      enabled: true,
      template: { listId: list.body.id, content: { body: 'from a campaign' } },
    });
    expect(campaign.status).toBe(201);
    const get = async <T>(path: string) =>
      (await (await fetch(cluster.url + path, { headers: authHeaders() })).json()) as T;
    let fired: { taskId: number } | undefined;
    await waitFor(
      async () => {
        const { firings } = await get<{ firings: { outcome: string; taskId: number }[] }>(
          `/api/v1/campaigns/${campaign.body.id}/firings`,
        );
        fired = firings.find((f) => f.outcome === 'fired');
        return fired !== undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200, message: `campaign ${campaign.body.id} never fired\n${cluster.logs()}` },
    );
    expect((await post(`/api/v1/campaigns/${campaign.body.id}/disable`, {})).status).toBe(200);
    // The controller has no link to the schedulers: the owner's recovery sweep adopts the task (docs/campaigns.md).
    let task: Task | undefined;
    await waitFor(
      async () => {
        task = await get<Task>(`/api/v1/tasks/${fired!.taskId}`);
        return ['COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'].includes(task.state);
      },
      {
        timeoutMs: 120_000,
        intervalMs: 200,
        message: `campaign task ${fired!.taskId} did not finish (last: ${JSON.stringify(task)})\n${cluster.logs()}`,
      },
    );
    expect(task!.state).toBe('COMPLETED');
    expect(task!.content.body).toBe('from a campaign');
  });

  it("runs the follower check for a followers-only account's task and the targeting condition for a targeted task", async () => {
    expect(
      (
        await post('/api/v1/follows', {
          changes: [21, 22].map((uin) => ({ accountId: 'club', uin, following: true, at: 1 })),
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await post('/api/v1/user-attributes', {
          users: [
            { uin: 31, region: 'eu', tags: ['prod'] },
            { uin: 32, region: 'eu' },
          ],
        })
      ).status,
    ).toBe(200);
    const finished = async (accountId: string, uins: number[], fields: Record<string, unknown>): Promise<Task> => {
      const list = await post<ListMeta>(
        `/api/v1/lists?accountId=${accountId}`,
        encodeRecipientList(uins),
        'application/octet-stream',
      );
      const created = await post<Task>('/api/v1/tasks', {
        accountId,
        listId: list.body.id,
        content: { body: `filtered ${accountId}` },
        ...fields,
      });
      expect(created.status).toBe(201);
      let task: Task | undefined;
      await waitFor(
        async () => {
          task = (await (
            await fetch(`${cluster.url}/api/v1/tasks/${created.body.id}`, { headers: authHeaders() })
          ).json()) as Task;
          return ['COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'].includes(task.state);
        },
        {
          timeoutMs: 60_000,
          intervalMs: 100,
          message: `task ${created.body.id} did not finish (last: ${JSON.stringify(task?.state)})\n${cluster.logs()}`,
        },
      );
      expect(task!.state).toBe('COMPLETED');
      return task!;
    };
    const club = await finished('club', [21, 22, 23], {});
    expect(club.report).toMatchObject({ total: 3, kept: 2, removed: { not_follower: 1 } });
    const targeted = await finished('acme', [31, 32, 33], { targeting: 'region:eu AND tag:prod' });
    expect(targeted.targeting).toBe('region:eu AND tag:prod');
    expect(targeted.report).toMatchObject({ total: 3, kept: 1, removed: { targeting: 2 } });
    expect(targeted.report.removed).not.toHaveProperty('not_follower');
  });

  // Guard rails (issue 15) on this profile: the interface process runs the dispatchers' chain for a dry run.
  it("refuses a broadcast over the account's confirmAbove without its count, and dry-runs it with the counts the real run reports", async () => {
    const request = async <T>(method: string, path: string, body?: unknown) => {
      const response = await fetch(cluster.url + path, {
        method,
        headers: { ...authHeaders(), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: (await response.json()) as T };
    };
    expect((await request('PUT', '/api/v1/accounts/guard/limits', { confirmAbove: 2 })).status).toBe(200);
    // 33 repeated; of the rest only 31 and 32 have region eu (the test above stored them).
    const list = await post<ListMeta>(
      '/api/v1/lists?accountId=guard',
      encodeRecipientList([31, 32, 33, 33, 41]),
      'application/octet-stream',
    );
    const body = { accountId: 'guard', listId: list.body.id, content: { body: 'guarded' }, targeting: 'region:eu' };
    const snapshot = async () => ({
      tasks: (await request<{ tasks: unknown[] }>('GET', '/api/v1/tasks?accountId=guard')).body.tasks,
      usage: (await request<{ usage: unknown }>('GET', '/api/v1/accounts/guard/limits')).body.usage,
    });
    const before = await snapshot();
    const refused = await request<{ error: { code: string; details: unknown } }>('POST', '/api/v1/tasks', body);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: 'CONFIRMATION_REQUIRED',
      details: { field: 'confirm', recipients: 5, threshold: 2 },
    });
    expect((await request('POST', '/api/v1/tasks', { ...body, confirm: 4 })).status).toBe(409);
    const dry = await request<{ recipients: unknown; confirmationRequired: boolean }>(
      'POST',
      '/api/v1/tasks?dryRun=true',
      body,
    );
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({
      confirmationRequired: true,
      recipients: { listed: 5, kept: 2, removed: { duplicate: 1, targeting: 2 } },
    });
    expect(await snapshot()).toEqual(before);

    const created = await post<Task>('/api/v1/tasks', { ...body, confirm: 5 });
    expect(created.status).toBe(201);
    let task: Task | undefined;
    await waitFor(
      async () => {
        task = (await request<Task>('GET', `/api/v1/tasks/${created.body.id}`)).body;
        return ['COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'].includes(task.state);
      },
      {
        timeoutMs: 60_000,
        intervalMs: 100,
        message: `task ${created.body.id} did not finish (last: ${JSON.stringify(task?.state)})\n${cluster.logs()}`,
      },
    );
    expect(task!.state).toBe('COMPLETED');
    expect({ listed: task!.report.total, kept: task!.report.kept, removed: task!.report.removed }).toEqual(
      dry.body.recipients,
    );
  });

  it('has every executor report its host load to every dispatcher (host.load over CURVE, docs/scheduling.md)', async () => {
    const reports = async (dispatcher: string) => {
      const text = await (
        await fetch(`http://${cluster.managementAddress(dispatcher)}/metrics`, { headers: cluster.managementHeaders() })
      ).text();
      return Number(/^herald_dispatcher_load_reports_total (\d+)/m.exec(text)?.[1] ?? 0);
    };
    // Two executors, one report each per second: four reports means both were heard, or one twice as often.
    for (const dispatcher of cluster.ids('dispatcher')) {
      await waitFor(async () => (await reports(dispatcher)) >= 4, {
        timeoutMs: 20_000,
        intervalMs: 200,
        message: `${dispatcher} receives load reports`,
      });
    }
  });

  it('refuses every unauthenticated request on every management port, and every process keeps working (docs/security.md)', async () => {
    await expectManagementLocked(cluster);
    // Still working: a broadcast through every tier completes.
    const list = await post<ListMeta>(
      '/api/v1/lists?accountId=acme',
      encodeRecipientList([41, 42, 43]),
      'application/octet-stream',
    );
    const created = await post<Task>('/api/v1/tasks', {
      accountId: 'acme',
      listId: list.body.id,
      content: { body: 'after the sweep' },
    });
    expect(created.status).toBe(201);
    let task: Task | undefined;
    await waitFor(
      async () => {
        task = (await (
          await fetch(`${cluster.url}/api/v1/tasks/${created.body.id}`, { headers: authHeaders() })
        ).json()) as Task;
        return ['COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'].includes(task.state);
      },
      {
        timeoutMs: 60_000,
        intervalMs: 100,
        message: `task ${created.body.id} did not finish after the sweep (last: ${JSON.stringify(task?.state)})\n${cluster.logs()}`,
      },
    );
    expect(task!.state).toBe('COMPLETED');
  });

  it('delivers exactly the online kept recipients and queues exactly the rest', async () => {
    expect(
      (await post('/api/v1/blacklists/global', encodeRecipientList(audience.blacklist), 'application/octet-stream'))
        .status,
    ).toBe(200);
    const list = await post<ListMeta>(
      '/api/v1/lists?accountId=acme',
      encodeRecipientList(audience.list),
      'application/octet-stream',
    );
    expect(list.status).toBe(201);
    const created = await post<Task>('/api/v1/tasks', {
      accountId: 'acme',
      listId: list.body.id,
      content: { body: 'hello from production' },
    });
    expect(created.status).toBe(201);
    broadcastId = created.body.id;

    let task: Task | undefined;
    await waitFor(
      async () => {
        task = (await (
          await fetch(`${cluster.url}/api/v1/tasks/${created.body.id}`, { headers: authHeaders() })
        ).json()) as Task;
        return ['COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'].includes(task.state);
      },
      {
        timeoutMs: 120_000,
        intervalMs: 100,
        message: `task did not finish (last: ${JSON.stringify(task?.state)})\n${cluster.logs()}`,
      },
    );
    expect(task!.state).toBe('COMPLETED');
    expect(task!.report).toMatchObject({
      total: audience.list.length,
      kept: kept.length,
      removed: {
        duplicate: audience.list.length - audience.distinct.length,
        blacklisted: audience.distinct.length - kept.length,
        already_sent: 0,
      },
      delivered: online.length,
      offline: offline.length,
    });

    const { delivered, queued } = await actualOutcome(cluster, join(dir.path, 'data'), task!.id);
    expect(delivered.length).toBe(online.length); // nothing crashed, so nothing was delivered twice
    expect(uniqueSorted(delivered.slice())).toEqual(online);
    expect(queued).toEqual(offline);
  });

  it('relays every state change of the task to the task-events topic, in order', async () => {
    const consumer = cluster.kafka().consumer({ groupId: `e2e-events-${tag}` });
    await consumer.connect();
    await consumer.subscribe({ topic: names.topicPrefix + TOPICS.taskEvents, fromBeginning: true });
    const states: string[] = [];
    await consumer.run({
      eachMessage: async ({ message }) => {
        const event = JSON.parse(message.value!.toString()) as { taskId: number; to: string };
        if (event.taskId === broadcastId) states.push(event.to);
      },
    });
    await waitFor(() => states.includes('COMPLETED'), {
      timeoutMs: 60_000,
      message: `task events seen: ${states.join(',')}`,
    });
    await consumer.disconnect();
    // At least once: a repeat is allowed, a reordering is not.
    const distinct = states.filter((s, i) => s !== states[i - 1]);
    expect(distinct).toEqual(['CREATED', 'QUEUED', 'PREPROCESSING', 'DISPATCHING', 'SENDING', 'COMPLETED']);
  });
});
