import type { RecipientFate } from '@herald/core/fate';
import { variantIndexOf } from '@herald/core/rollout';
import type { Task } from '@herald/core/task';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { readDeliveryFile } from '@herald/executor';
import { authHeaders, makeTempDir, TEST_AUTH_OPTIONS, TEST_TASK_OPTIONS, type TempDir } from '@herald/testing';
import { call, listBytes, upload, waitForEnd } from './helpers';

/**
 * A/B variants with a holdout end to end (docs/rollouts.md): each variant's
 * delivered set (online, and offline users' at login) is exactly the uins
 * the assignment function gives it, the
 * holdout gets nothing and is counted as removed `held_out`, and the
 * per-recipient answer and the delivery report name the variant.
 */
describe('A/B variants with a holdout', () => {
  let dir: TempDir;
  let cluster: EmbeddedCluster;
  const AUDIENCE = Array.from({ length: 5000 }, (_, i) => 1000 + i * 7);
  const variants = [
    { name: 'a', share: 0.45, content: { body: 'Spring sale: 10% off' } },
    { name: 'b', share: 0.45, content: { title: 'Sale', body: 'Spring sale: free shipping' } },
  ];

  beforeAll(async () => {
    dir = await makeTempDir('herald-ab-');
    cluster = await startEmbeddedCluster({
      dataDir: dir.path,
      uinSpaceBits: 20,
      http: { port: 0 },
      auth: TEST_AUTH_OPTIONS,
      tasks: TEST_TASK_OPTIONS,
    });
    // Every fifth user is offline: their variant must reach them at login too.
    AUDIENCE.forEach((uin, i) => cluster.online.setOnline(uin, i % 5 !== 0));
  });

  afterAll(async () => {
    await cluster?.stop();
    await dir?.remove();
  });

  it('delivers each variant to exactly its assigned uins and nothing to the holdout', async () => {
    const list = await upload(cluster, '/api/v1/lists?accountId=acme', listBytes(AUDIENCE));
    const created = await call<Task>(cluster, 'POST', '/api/v1/tasks', {
      accountId: 'acme',
      listId: list.body.id,
      content: { body: 'Spring sale' },
      variants,
      holdout: 0.1,
    });
    expect(created.status).toBe(201);
    const seed = created.body.rollout!.seed;
    const expected = new Map<string, number[]>([
      ['a', []],
      ['b', []],
      ['held', []],
    ]);
    for (const uin of AUDIENCE) {
      const at = variantIndexOf(uin, seed, variants, 0.1);
      expected.get(at < 0 ? 'held' : variants[at]!.name)!.push(uin);
    }
    const task = await waitForEnd(cluster, created.body.id);
    expect(task.state).toBe('COMPLETED');
    const held = new Set(expected.get('held'));
    const offline = AUDIENCE.filter((uin, i) => i % 5 === 0 && !held.has(uin));
    expect(task.report).toMatchObject({
      delivered: AUDIENCE.length - held.size - offline.length,
      offline: offline.length,
      removed: { held_out: held.size },
    });
    expect((await cluster.login(offline)).delivered).toBe(offline.length);

    const sink = await readDeliveryFile(cluster.deliveryDir, task.id);
    const got = new Map<string, number[]>([
      ['a', []],
      ['b', []],
    ]);
    for (const [uin, content] of sink.contents ?? []) {
      const name = variants.find((v) => v.content.body === content.body)!.name;
      got.get(name)!.push(uin);
    }
    for (const name of ['a', 'b']) expect(got.get(name)!.sort((x, y) => x - y)).toEqual(expected.get(name));
    expect(sink.uins.length).toBe(AUDIENCE.length - held.size);

    const isOffline = new Set(offline);
    const funnel = await call<{ variants: unknown[] }>(cluster, 'GET', `/api/v1/tasks/${task.id}/funnel`);
    expect(funnel.body.variants).toEqual(
      variants.map(({ name, share }) => {
        const queuedOffline = expected.get(name)!.filter((uin) => isOffline.has(uin)).length;
        const recipients = expected.get(name)!.length;
        return { name, share, recipients, deliveredOnline: recipients - queuedOffline, queuedOffline };
      }),
    );

    const inA = expected.get('a')!.find((uin) => !isOffline.has(uin))!;
    const [heldOut] = expected.get('held')!;
    const answerA = await call<RecipientFate>(cluster, 'GET', `/api/v1/tasks/${task.id}/recipients/${inA}`);
    expect(answerA.body).toMatchObject({ fate: 'delivered_online', variant: 'a' });
    const answerHeld = await call<RecipientFate>(cluster, 'GET', `/api/v1/tasks/${task.id}/recipients/${heldOut}`);
    expect(answerHeld.body).toMatchObject({ fate: 'removed', link: 'held_out' });
    expect(answerHeld.body).not.toHaveProperty('variant');

    // The CSV report names each row's variant as the per-recipient answer does: last, empty for the holdout.
    const csv = await (await fetch(`${cluster.url}/api/v1/tasks/${task.id}/report`, { headers: authHeaders() })).text();
    const [header, ...rows] = csv.trimEnd().split('\n');
    expect(header).toBe('uin,position,fate,detail,at,executor,then_at,variant');
    const variantIn = new Map(rows.map((row) => [Number(row.split(',')[0]), row.slice(row.lastIndexOf(',') + 1)]));
    expect([variantIn.get(inA), variantIn.get(heldOut)]).toEqual([answerA.body.variant, '']);
    for (const name of ['a', 'b'])
      expect(AUDIENCE.filter((uin) => variantIn.get(uin) === name)).toEqual(expected.get(name));
  });

  it('refuses shares that do not add up, naming the field, and creates nothing', async () => {
    const list = await upload(cluster, '/api/v1/lists?accountId=acme', listBytes([1, 2, 3]));
    const before = (await cluster.store.listTasks({ accountId: 'acme' })).tasks.length;
    const bad: [Record<string, unknown>, string][] = [
      [{ variants, holdout: 0.2 }, 'variants'],
      [{ variants: [variants[0], { ...variants[1], share: 1.2 }], holdout: 0.1 }, 'variants[1].share'],
      [{ holdout: 0.1 }, 'holdout'],
      [{ variants: [variants[0]] }, 'variants'],
      [{ variants: [variants[0], { ...variants[1], name: 'a' }], holdout: 0.1 }, 'variants[1].name'],
    ];
    for (const [fields, field] of bad) {
      const answer = await call<{ error: { code: string; details: { field: string } } }>(
        cluster,
        'POST',
        '/api/v1/tasks',
        { accountId: 'acme', listId: list.body.id, content: { body: 'x' }, ...fields },
      );
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'VALIDATION_FAILED', details: { field } });
    }
    expect((await cluster.store.listTasks({ accountId: 'acme' })).tasks.length).toBe(before);
  });

  it('answers a retry with the same split with the first task, and another split with 409', async () => {
    const list = await upload(cluster, '/api/v1/lists?accountId=acme', listBytes([5, 6, 7]));
    const post = (holdout: number) =>
      fetch(`${cluster.url}/api/v1/tasks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'ab-retry-1', ...authHeaders() },
        body: JSON.stringify({ accountId: 'acme', listId: list.body.id, content: { body: 'x' }, variants, holdout }),
      });
    const first = await post(0.1);
    expect(first.status).toBe(201);
    const retry = await post(0.1);
    expect(retry.status).toBe(200);
    expect(((await retry.json()) as Task).id).toBe(((await first.json()) as Task).id);
    const changed = await fetch(`${cluster.url}/api/v1/tasks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'ab-retry-1', ...authHeaders() },
      body: JSON.stringify({
        accountId: 'acme',
        listId: list.body.id,
        content: { body: 'x' },
        variants: [variants[0], { ...variants[1], share: 0.35 }],
        holdout: 0.2,
      }),
    });
    expect(changed.status).toBe(409);
  });
});
