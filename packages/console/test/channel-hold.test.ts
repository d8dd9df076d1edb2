import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { makeTempDir, waitFor, WebhookReceiver, type TempDir, type WebhookAnswer } from '@herald/testing';
import type { Page } from 'playwright-core';
import { ensureConsoleBuilt, launchBrowser, type Browser } from './harness';

/**
 * The task page while the delivery channel holds a broadcast (docs/delivery.md,
 * "Pacing by the channel's health"): a real embedded Herald pushing to a
 * local webhook that answers 429 until the test lets it accept.
 */
const ADMIN_TOKEN = 'hrd_holdtest_console-channel-hold-test-admin-secret-0123';

describe('console: a task held by its channel', () => {
  let dir: TempDir;
  let receiver: WebhookReceiver;
  let cluster: EmbeddedCluster;
  let browser: Browser;
  let page: Page;
  let throttling = true;

  beforeAll(async () => {
    ensureConsoleBuilt();
    dir = await makeTempDir('herald-console-hold-');
    receiver = await WebhookReceiver.start();
    receiver.answerBy((): WebhookAnswer =>
      throttling ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200 },
    );
    cluster = await startEmbeddedCluster({
      dataDir: dir.path,
      uinSpaceBits: 16,
      http: { port: 0 },
      executor: { ids: ['executor-1'] },
      offline: { rangeBits: 8 },
      auth: { bootstrapAdminToken: ADMIN_TOKEN },
      delivery: {
        kind: 'webhook',
        webhook: { url: receiver.url, timeoutMs: 1000, pacing: { maxHoldMs: 120_000 } },
      },
    });
    for (const uin of [7, 8, 9]) cluster.online.setOnline(uin, true);
    browser = await launchBrowser();
    page = browser.page;
    await page.goto(cluster.url + '/');
    await page.getByLabel('API token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Tasks' }).waitFor();
  }, 120_000);

  afterAll(async () => {
    throttling = false;
    await browser?.close();
    await cluster?.stop();
    await receiver?.stop();
    await dir?.remove();
  });

  async function api<T>(method: string, path: string, body: string, type: string): Promise<T> {
    const response = await fetch(cluster.url + path, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': type },
      body,
    });
    expect(response.ok).toBe(true);
    return (await response.json()) as T;
  }

  it('says the channel is throttled, in words, while it holds the task, and stops saying so once it sends', async () => {
    const list = await api<{ id: string }>('POST', '/api/v1/lists?accountId=acme', '7\n8\n9\n', 'text/plain');
    const task = await api<{ id: number }>(
      'POST',
      '/api/v1/tasks',
      JSON.stringify({ accountId: 'acme', listId: list.id, content: { body: 'held' } }),
      'application/json',
    );
    await page.goto(`${cluster.url}/console/tasks/${task.id}`);
    const hold = page.locator('[data-channel="throttled"]');
    await hold.waitFor({ timeout: 20_000 });
    expect(await hold.textContent()).toMatch(/^Channel throttled: sending is held and resumes by itself\. .*429/);
    throttling = false;
    await page.getByText('COMPLETED').first().waitFor({ timeout: 20_000 });
    await waitFor(async () => (await hold.count()) === 0, { message: 'the hold line gone' });
    expect(receiver.accepted).toHaveLength(1);
  }, 60_000);
});
