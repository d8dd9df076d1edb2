import { encodeRecipientList } from '@herald/core/recipient-list';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { FileDeliverySink } from '@herald/executor';
import { makeTempDir, type TempDir } from '@herald/testing';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { ensureConsoleBuilt, launchBrowser, screenshot, type Browser } from './harness';

/**
 * Issue 22, "Lists of tasks and campaigns: search by id, title or content":
 * the search boxes of the task and campaign lists ask the server
 * (GET /api/v1/tasks?q=, /api/v1/campaigns?q=) once typing pauses, say when
 * nothing matches, and page the matches with the list's own controls.
 */
const ADMIN_TOKEN = 'hrd_searchtest_console-search-test-admin-secret-01234';

describe('searching the task and campaign lists', () => {
  let dir: TempDir;
  let cluster: EmbeddedCluster;
  let browser: Browser;
  let page: Page;
  const ids: Record<string, number> = {};

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
    dir = await makeTempDir('herald-console-search-');
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
    const list = await api<{ id: string }>(
      'POST',
      '/api/v1/lists?accountId=acme',
      encodeRecipientList(Uint32Array.from({ length: 10 }, (_, i) => 100 + i)),
    );
    // Scheduled a day ahead: they stay on the list as they are while the test reads it.
    const tasks: [string, { title?: string; body: string }][] = [
      ['news', { title: 'News', body: 'Good morning' }],
      ['saleTitle', { title: 'Spring SALE', body: 'Everything must go' }],
      ['saleBody', { body: 'The sale ends on Friday' }],
      ['saleOld', { body: 'Last call: sale' }],
    ];
    for (const [name, content] of [...tasks].reverse())
      ids[name] = (
        await api<{ id: number }>('POST', '/api/v1/tasks', {
          accountId: 'acme',
          listId: list.id,
          content,
          sendAt: new Date(Date.now() + 86_400_000).toISOString(),
        })
      ).id;
    for (const [name, content] of [
      ['Weekly roundup', { body: 'Your week' }],
      ['Promotions', { title: 'Deals', body: 'Flash sale today' }],
    ] as const)
      await api('POST', '/api/v1/campaigns', {
        accountId: 'acme',
        name,
        cron: '0 9 * * mon-fri',
        timeZone: 'Europe/Berlin',
        enabled: false,
        template: { listId: list.id, content },
      });
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

  const taskIds = () => page.locator('table.tasks tbody tr td.num a').allInnerTexts();
  /** Waits until the list shows exactly these task ids, in this order. */
  const waitForTaskIds = async (expected: number[]) => {
    const want = JSON.stringify(JSON.stringify(expected.map(String)));
    const shown = `JSON.stringify(Array.from(document.querySelectorAll('table.tasks tbody tr td.num a'), (a) => a.textContent))`;
    await page.waitForFunction(`${shown} === ${want}`, undefined, { timeout: 10_000 });
  };

  it('asks the server for the title, message or id typed, and says when nothing matches', async () => {
    await page.goto(`${cluster.url}/console/tasks?account=`);
    await waitForTaskIds([ids.news!, ids.saleTitle!, ids.saleBody!, ids.saleOld!]);
    const box = page.getByRole('searchbox', { name: 'Search tasks' });

    const asked = page.waitForRequest((r) => new URL(r.url()).searchParams.get('q') === 'SALE');
    await box.pressSequentially('SALE');
    await asked;
    await waitForTaskIds([ids.saleTitle!, ids.saleBody!, ids.saleOld!]);
    expect(new URL(page.url()).searchParams.get('q')).toBe('SALE');

    await box.fill(`#${ids.news!}`);
    await waitForTaskIds([ids.news!]);

    await box.fill('nothing like it');
    await page.getByText('No task matches “nothing like it”.').waitFor();
    expect(await page.locator('table.tasks').count()).toBe(0);

    await box.fill('x'.repeat(201));
    await page.getByText('A search is at most 200 characters.').waitFor();
    await box.fill('');
    await waitForTaskIds([ids.news!, ids.saleTitle!, ids.saleBody!, ids.saleOld!]);
  });

  it('pages the matches with Older and Newer', async () => {
    await page.goto(`${cluster.url}/console/tasks?account=&limit=2&q=sale`);
    await waitForTaskIds([ids.saleTitle!, ids.saleBody!]);
    expect(await page.getByRole('searchbox', { name: 'Search tasks' }).inputValue()).toBe('sale');
    await screenshot(page, '38-task-search');
    await page.getByRole('button', { name: 'Older →' }).click();
    await waitForTaskIds([ids.saleOld!]);
    expect(await page.getByRole('button', { name: 'Older →' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: '← Newer' }).click();
    await waitForTaskIds([ids.saleTitle!, ids.saleBody!]);
    expect(await taskIds()).toHaveLength(2);
  });

  it('finds campaigns by name or template text', async () => {
    await page.goto(`${cluster.url}/console/campaigns`);
    const names = page.locator('table.campaigns tbody tr td:nth-child(2)');
    await names.nth(1).waitFor();
    const box = page.getByRole('searchbox', { name: 'Search campaigns' });
    await box.fill('ROUNDUP');
    await page.waitForFunction("document.querySelectorAll('table.campaigns tbody tr').length === 1");
    expect(await names.allInnerTexts()).toEqual(['Weekly roundup']);
    await box.fill('flash sale');
    await page.locator('table.campaigns tbody tr', { hasText: 'Promotions' }).waitFor();
    expect(await names.allInnerTexts()).toEqual(['Promotions']);
    await screenshot(page, '38-campaign-search');
    await box.fill('no such thing');
    await page.getByText('No campaign matches “no such thing”.').waitFor();
  });
});
