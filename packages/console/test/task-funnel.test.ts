import { encodeRecipientList } from '@herald/core/recipient-list';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { makeTempDir, waitFor, type TempDir } from '@herald/testing';
import type { Page } from 'playwright-core';
import { ensureConsoleBuilt, launchBrowser, screenshot, seriousAxeViolations, type Browser } from './harness';

/**
 * The task page's funnel in headless Chromium against a real embedded
 * Herald: a broadcast with duplicates, blacklisted ids, online and offline
 * recipients, some of whom log in; every row's number on the page must be
 * the API's (GET /api/v1/tasks/:id/funnel), as text, and it must follow a
 * login made while the page is open.
 */
const ADMIN_TOKEN = 'hrd_funnel_console-task-funnel-test-admin-secret-012345';

interface Stage {
  stage: string;
  link?: string;
  why?: string;
  count: number | 'unknown';
}

describe('the funnel on the task page', () => {
  let dir: TempDir;
  let cluster: EmbeddedCluster;
  let browser: Browser;
  let page: Page;

  const admin = async <T>(method: string, path: string, body?: Uint8Array | object): Promise<T> => {
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
    dir = await makeTempDir('herald-console-funnel-');
    cluster = await startEmbeddedCluster({
      dataDir: dir.path,
      uinSpaceBits: 16,
      http: { port: 0 },
      dispatcher: { batchSize: 250, unitSize: 1000 },
      executor: { ids: ['executor-1'] },
      auth: { bootstrapAdminToken: ADMIN_TOKEN },
    });
    browser = await launchBrowser();
    page = browser.page;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await cluster?.stop();
    await dir?.remove();
  });

  /** The page's number for each stage, keyed as the API's stages are. */
  const shown = async () =>
    page
      .locator('table.funnel tbody tr')
      .evaluateAll((rows) =>
        Object.fromEntries(
          rows.map((row) => [
            row.getAttribute('data-funnel'),
            row.querySelector('[data-funnel-count]')?.textContent ?? '',
          ]),
        ),
      );
  const expected = (stages: Stage[]) =>
    Object.fromEntries(
      stages.map((s) => [
        [s.stage, s.link ?? s.why].filter((part) => part !== undefined).join(':'),
        s.count === 'unknown' ? 'unknown' : s.count.toLocaleString('en-US'),
      ]),
    );

  it("shows the API's count for every stage, and follows a login", async () => {
    const distinct = Array.from({ length: 2_000 }, (_, i) => i * 7 + 3);
    const blacklist = distinct.filter((_, i) => i % 13 === 0);
    const online = distinct.filter((_, i) => i % 5 < 2);
    const offline = distinct.filter((uin, i) => i % 5 >= 2 && !blacklist.includes(uin));
    const uploaded = [...distinct, ...distinct.slice(0, 150)];
    await admin('PUT', '/api/v1/blacklists/global', encodeRecipientList(blacklist));
    for (const uin of online) cluster.online.setOnline(uin, true);
    const list = await admin<{ id: string }>('POST', '/api/v1/lists?accountId=acme', encodeRecipientList(uploaded));
    const task = await admin<{ id: number }>('POST', '/api/v1/tasks', {
      accountId: 'acme',
      listId: list.id,
      content: { body: 'Funnel' },
    });
    await waitFor(async () => (await cluster.store.getTask(task.id))?.state === 'COMPLETED', {
      timeoutMs: 60_000,
      message: 'the task did not complete',
    });
    await cluster.login(Uint32Array.from(offline.slice(0, 300)));
    const funnel = () => admin<{ stages: Stage[] }>('GET', `/api/v1/tasks/${task.id}/funnel`);
    const before = await funnel();
    expect(before.stages.find((s) => s.stage === 'delivered_at_login')?.count).toBe(300);

    await page.goto(cluster.url + '/');
    await page.getByLabel('API token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Tasks' }).waitFor();
    await page.goto(`${cluster.url}/console/tasks/${task.id}`);
    const table = page.getByRole('table', { name: 'Funnel' });
    await table.locator('tr[data-funnel="delivered_at_login"] [data-funnel-count]', { hasText: '300' }).waitFor();
    expect(await shown()).toEqual(expected(before.stages));
    expect(await table.locator('tr[data-funnel="removed:blacklisted"] th').textContent()).toContain('blacklisted');
    await page.locator('table.funnel').scrollIntoViewIfNeeded();
    await screenshot(page, '48-task-funnel');
    expect(await seriousAxeViolations(page)).toEqual([]);

    // The page refreshes the funnel (every 15 s for an ended task): more logins show without a reload.
    await cluster.login(Uint32Array.from(offline.slice(300, 400)));
    const after = await funnel();
    expect(after.stages.find((s) => s.stage === 'delivered_at_login')?.count).toBe(400);
    await table.locator('tr[data-funnel="delivered_at_login"] [data-funnel-count]', { hasText: '400' }).waitFor();
    expect(await shown()).toEqual(expected(after.stages));
  }, 120_000);
});
