import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { encodeRecipientList } from '@herald/core/recipient-list';
import { makeTempDir, TEST_CAMPAIGN_OPTIONS, TEST_TASK_OPTIONS, waitFor, type TempDir } from '@herald/testing';
import type { Page } from 'playwright-core';
import { ensureConsoleBuilt, launchBrowser, type Browser, apiAs } from './harness';

/**
 * The campaign pages and the no-resend scope (docs/campaigns.md, "No-resend
 * scope"), in headless Chromium against an embedded Herald: the new-campaign
 * form asks for the scope with a select (and a window in days), the request
 * carries it, the campaign page says it in words; a campaign of unchanging
 * content under scope 'content' fires again and its history says, in words,
 * that the firing reached nobody because everyone had the content already.
 */
const ADMIN_TOKEN = 'hrd_consoletest_campaign-scope-test-admin-secret-0123456';
const uins = [11, 12, 13, 14, 15];

describe('campaign no-resend scope in the console (Chromium)', () => {
  let dir: TempDir;
  let cluster: EmbeddedCluster;
  let browser: Browser;
  let page: Page;
  let listFile: string;

  const api = apiAs(() => cluster.url, ADMIN_TOKEN);

  beforeAll(async () => {
    ensureConsoleBuilt();
    dir = await makeTempDir('herald-console-scope-');
    cluster = await startEmbeddedCluster({
      dataDir: dir.path,
      uinSpaceBits: 16,
      http: { port: 0 },
      auth: { bootstrapAdminToken: ADMIN_TOKEN },
      tasks: TEST_TASK_OPTIONS,
      campaigns: { ...TEST_CAMPAIGN_OPTIONS, scanIntervalMs: 200 },
    });
    await cluster.login(uins);
    const operator = await api<{ token: string }>('POST', '/api/v1/tokens', {
      name: 'Sam Scope',
      role: 'operator',
      accounts: ['acme'],
    });
    listFile = join(dir.path, 'list.csv');
    await writeFile(listFile, 'uin\n' + uins.join('\n') + '\n');
    browser = await launchBrowser();
    page = browser.page;
    await page.goto(cluster.url + '/');
    await page.getByLabel('API token').fill(operator.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Tasks' }).waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await cluster?.stop();
    await dir?.remove();
  });

  it('asks for the scope with a select, checks the window, and sends the scope chosen', async () => {
    await page.getByRole('link', { name: 'Campaigns' }).click();
    await page.getByRole('link', { name: 'New campaign' }).click();
    const scope = page.getByLabel('Resend');
    expect(await scope.locator('option').allInnerTexts()).toEqual([
      'Once per content',
      'Every firing',
      'At most once per window',
    ]);
    expect(await scope.inputValue()).toBe('content');
    await page.getByLabel('Name', { exact: true }).fill('Morning digest');
    await page.getByLabel('Time zone').fill('Europe/Paris');
    await page.getByLabel('Cron').fill('0 9 * * *');
    await page.locator('ol.fire-times li').nth(4).waitFor();
    await page.locator('#listFile').setInputFiles(listFile);
    await page.locator('.upload-result').waitFor();
    await page.getByLabel('Message', { exact: true }).fill('Your digest of {{firing.date}}');
    // A window takes whole days; a bad one is refused under the field before any request.
    await scope.selectOption('window');
    await page.getByLabel('Window in days').fill('0');
    await page.getByRole('button', { name: 'Create campaign' }).click();
    expect(await page.locator('.field-error[data-field="noResendScope"]').innerText()).toContain('1 to 366');
    expect((await api<{ campaigns: unknown[] }>('GET', '/api/v1/campaigns')).campaigns).toEqual([]);
    await scope.selectOption('firing');
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await page.waitForURL(/\/console\/campaigns\/\d+$/);
    await page.getByLabel('resend').getByText('sent to everyone every firing').waitFor();
    const [created] = (await api<{ campaigns: { template: { noResend?: unknown } }[] }>('GET', '/api/v1/campaigns'))
      .campaigns;
    expect(created!.template.noResend).toEqual({ scope: 'firing' });
  });

  it("shows on the campaign's history that a firing reached nobody because everyone had the content", async () => {
    const list = await api<{ id: string }>('POST', '/api/v1/lists?accountId=acme', encodeRecipientList(uins));
    const campaign = await api<{ id: number }>('POST', '/api/v1/campaigns', {
      accountId: 'acme',
      name: 'Same words every second',
      cron: '* * * * * *',
      timeZone: 'UTC',
      template: { listId: list.id, content: { body: 'Unchanging' } },
    });
    // Its first firing sends; every later one finds everyone already had it.
    await waitFor(
      async () => {
        const { firings } = await api<{ firings: { note: unknown }[] }>(
          'GET',
          `/api/v1/campaigns/${campaign.id}/firings`,
        );
        return firings.some((f) => f.note !== null);
      },
      { timeoutMs: 30_000, message: 'no firing of the campaign reached nobody' },
    );
    await api('POST', `/api/v1/campaigns/${campaign.id}/disable`);
    await page.goto(`${cluster.url}/console/campaigns/${campaign.id}`);
    await page.getByLabel('resend').getByText('each content once per recipient').waitFor();
    const note = page.getByRole('note').first();
    await note.waitFor();
    expect(await note.innerText()).toMatch(/^Reached nobody: all 5 recipients already got this content\./);
  });
});
