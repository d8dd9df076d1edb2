import { encodeRecipientList } from '@herald/core/recipient-list';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { FileDeliverySink } from '@herald/executor';
import { makeTempDir, type TempDir } from '@herald/testing';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { ensureConsoleBuilt, launchBrowser, screenshot, type Browser } from './harness';

/**
 * Issue 22, "Lists of tasks": clone a task, the same audience and content
 * at a new time (the task page's Clone opens the new-broadcast form filled
 * from the task; sending it creates a second task like the first). Finding
 * a task on the list: search.test.ts.
 */
const ADMIN_TOKEN = 'hrd_clonetest_console-clone-test-admin-secret-0123456';

describe('cloning tasks', () => {
  let dir: TempDir;
  let cluster: EmbeddedCluster;
  let browser: Browser;
  let page: Page;

  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const binary = body instanceof Uint8Array;
    const response = await fetch(cluster.url + path, {
      method,
      headers: {
        authorization: `Bearer ${ADMIN_TOKEN}`,
        ...(body === undefined ? {} : { 'content-type': binary ? 'application/octet-stream' : 'application/json' }),
      },
      body: body === undefined ? undefined : binary ? body : JSON.stringify(body),
    });
    const answer = (await response.json()) as T;
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
    return answer;
  };

  beforeAll(async () => {
    ensureConsoleBuilt();
    dir = await makeTempDir('herald-console-clone-');
    cluster = await startEmbeddedCluster(
      {
        dataDir: dir.path,
        uinSpaceBits: 16,
        http: { port: 0 },
        executor: { ids: ['executor-1'] },
        offline: { rangeBits: 8 },
        auth: { bootstrapAdminToken: ADMIN_TOKEN },
      },
      { gateway: new FileDeliverySink(join(dir.path, 'deliveries')) },
    );
    browser = await launchBrowser();
    page = browser.page;
    await page.goto(cluster.url + '/console/');
    await page.getByLabel('API token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Tasks' }).waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await cluster?.stop();
    await dir?.remove();
  });

  it('opens the form filled from the task, and sends a second task like it at a new time', async () => {
    // A speed needs an account allowed one (its maxSpeed).
    await api('PUT', '/api/v1/accounts/acme_news/limits', { maxSpeed: 1000 });
    const list = await api<{ id: string }>(
      'POST',
      '/api/v1/lists?accountId=acme_news',
      encodeRecipientList(Uint32Array.from({ length: 40 }, (_, i) => 500 + i)),
    );
    const original = await api<{ id: number }>('POST', '/api/v1/tasks', {
      accountId: 'acme_news',
      listId: list.id,
      content: { title: 'Weekly digest', body: 'Hello {{region|default:"there"}}', template: true },
      priority: 'realtime',
      ttlSeconds: 5400,
      speed: 250,
      sendAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    await page.goto(`${cluster.url}/console/tasks/${original.id}`);
    await page.locator('h1 .badge', { hasText: 'SCHEDULED' }).waitFor();
    await page.getByRole('link', { name: 'Clone' }).click();
    await page.getByRole('heading', { name: 'New broadcast' }).waitFor();
    const note = page.locator('.clone-note');
    await note.waitFor();
    expect(await note.innerText()).toBe(
      `The list of task ${original.id}: ${list.id}, 40 recipients. Upload a file to send to another list.`,
    );
    expect(await page.getByLabel('Title').inputValue()).toBe('Weekly digest');
    expect(await page.getByLabel('Message', { exact: true }).inputValue()).toBe('Hello {{region|default:"there"}}');
    expect(await page.getByLabel('Fill in variables per recipient').isChecked()).toBe(true);
    expect(await page.getByRole('radio', { name: /^Real-time/ }).isChecked()).toBe(true);
    expect(await page.getByLabel('Duration').inputValue()).toBe('1.5');
    expect(await page.getByLabel('Speed').inputValue()).toBe('250');
    expect(await page.getByRole('radio', { name: 'Send now' }).isChecked()).toBe(true);
    expect(await page.locator('h1 + .muted, .page-head .muted').first().innerText()).toContain('acme_news');
    await screenshot(page, '37-clone-task');

    await page.getByRole('radio', { name: 'At', exact: true }).check();
    const later = await page.evaluate<string>(`(() => {
      const d = new Date(Date.now() + 2 * 86400000);
      return d.getFullYear() + '-' + String(d.getMonth() + 1).padStart(2, '0') + '-' + String(d.getDate()).padStart(2, '0');
    })()`);
    await page.getByRole('textbox', { name: 'Send at' }).fill(`${later} 08:15`);
    await page.getByRole('button', { name: 'Schedule broadcast' }).click();
    await page.waitForURL(/\/console\/tasks\/\d+$/);
    const cloneId = Number(/tasks\/(\d+)$/.exec(page.url())![1]);
    expect(cloneId).not.toBe(original.id);
    const [first, second] = await Promise.all([cluster.store.getTask(original.id), cluster.store.getTask(cloneId)]);
    expect(second).toMatchObject({
      accountId: first!.accountId,
      listId: first!.listId,
      content: first!.content,
      priority: 'realtime',
      speed: 250,
    });
    expect(second!.expiresAt - second!.sendAt).toBe(5_400_000);
    expect(second!.sendAt).toBe(await page.evaluate<number>(`new Date('${later}T08:15:00').getTime()`));
  });
});
