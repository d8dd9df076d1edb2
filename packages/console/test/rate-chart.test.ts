import { encodeRecipientList } from '@herald/core/recipient-list';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { makeTempDir, waitFor, type TempDir } from '@herald/testing';
import type { Page } from 'playwright-core';
import { ensureConsoleBuilt, launchBrowser, screenshot, type Browser } from './harness';

/**
 * The task page's delivery rate chart in headless Chromium against a real
 * embedded Herald: a task that finished before the page was ever opened
 * still draws its whole curve, from the server's record
 * (GET /api/v1/tasks/:id/progress), never "collecting samples…".
 */
const ADMIN_TOKEN = 'hrd_ratechart_console-rate-chart-test-admin-secret-0123';

describe('the rate chart of a finished task', () => {
  let dir: TempDir;
  let cluster: EmbeddedCluster;
  let browser: Browser;
  let page: Page;

  const admin = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(cluster.url + path, {
      method,
      headers: {
        authorization: `Bearer ${ADMIN_TOKEN}`,
        ...(body instanceof Uint8Array
          ? { 'content-type': 'application/octet-stream' }
          : body === undefined
            ? {}
            : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : body instanceof Uint8Array ? body : JSON.stringify(body),
    });
    const answer = (await response.json()) as T;
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
    return answer;
  };

  beforeAll(async () => {
    ensureConsoleBuilt();
    dir = await makeTempDir('herald-console-rate-');
    cluster = await startEmbeddedCluster({
      dataDir: dir.path,
      uinSpaceBits: 16,
      http: { port: 0 },
      dispatcher: { batchSize: 500, unitSize: 5000 },
      executor: { ids: ['executor-1'] },
      auth: { bootstrapAdminToken: ADMIN_TOKEN },
      accounts: { defaultLimits: { maxSpeed: 3_000 } },
    });
    browser = await launchBrowser();
    page = browser.page;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await cluster?.stop();
    await dir?.remove();
  });

  it('draws the curve the scheduler recorded, opened only after the task completed', async () => {
    const uins = Array.from({ length: 12_000 }, (_, i) => i * 5 + 1);
    const list = await admin<{ id: string }>('POST', '/api/v1/lists?accountId=acme', encodeRecipientList(uins));
    // Paced, so that it sends for a few seconds and its curve has several points.
    const task = await admin<{ id: number }>('POST', '/api/v1/tasks', {
      accountId: 'acme',
      listId: list.id,
      content: { body: 'Rate chart' },
      speed: 3_000,
    });
    await waitFor(async () => (await cluster.store.getTask(task.id))?.state === 'COMPLETED', {
      timeoutMs: 60_000,
      message: 'the paced task did not complete',
    });
    const progress = await admin<{ samples: unknown[]; recorded: boolean; confirmed: number }>(
      'GET',
      `/api/v1/tasks/${task.id}/progress`,
    );
    expect(progress.recorded).toBe(true);
    expect(progress.confirmed).toBe(uins.length);
    expect(progress.samples.length).toBeGreaterThanOrEqual(3);

    await page.goto(cluster.url + '/');
    await page.getByLabel('API token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Tasks' }).waitFor();
    await page.goto(`${cluster.url}/console/tasks/${task.id}`);
    await page.locator('h1 .badge', { hasText: 'COMPLETED' }).waitFor();
    const chart = page.getByRole('img', { name: 'delivery rate chart' });
    await chart.locator('path.line').waitFor();
    expect(await chart.textContent()).not.toContain('collecting samples');
    expect(Number(await chart.getAttribute('data-points'))).toBe(progress.samples.length);
    await screenshot(page, '30-task-rate-chart');
  });
});
