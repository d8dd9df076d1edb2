import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { makeTempDir, TEST_CAMPAIGN_OPTIONS, TEST_TASK_OPTIONS, waitFor, type TempDir } from '@herald/testing';
import type { Page } from 'playwright-core';
import { ensureConsoleBuilt, launchBrowser, screenshot, seriousAxeViolations, type Browser } from './harness';

/**
 * A campaign's life in the console (issue 22, defect 1 and "Lists of tasks
 * and campaigns"), in headless Chromium against an embedded Herald: a
 * campaign created once although the answer to its creation was lost, run
 * now once (the confirm dialog shows whom it reaches; the task links back;
 * a run whose answer was lost and is asked for again fires once), and its list, priority and duration edited, with refusals in the form's
 * words next to their fields.
 */
const ADMIN_TOKEN = 'hrd_consoletest_campaign-page-test-admin-secret-01234567';
const uins = [21, 22, 23, 24, 25];

interface CampaignAnswer {
  id: number;
  name: string;
  idempotencyKey?: string;
  template: { listId: string; priority: string; ttlSeconds?: number };
  projectedDailyReach: { recipientsPerFiring: number | null };
}

describe('the campaign page in the console (Chromium)', () => {
  let dir: TempDir;
  let cluster: EmbeddedCluster;
  let browser: Browser;
  let page: Page;
  let listFile: string;
  let campaignId: number;

  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(cluster.url + path, {
      method,
      headers: {
        authorization: `Bearer ${ADMIN_TOKEN}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = (await response.json()) as T;
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  const campaignsNamed = async (name: string) =>
    (await api<{ campaigns: CampaignAnswer[] }>('GET', '/api/v1/campaigns')).campaigns.filter((c) => c.name === name);
  const campaign = () => api<CampaignAnswer>('GET', `/api/v1/campaigns/${campaignId}`);

  const openEditor = async () => {
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    await page.getByRole('form', { name: 'Change the campaign' }).waitFor();
  };
  const saveEdits = async () => {
    await page.getByRole('button', { name: 'Save changes' }).click();
    // The button is renamed "Saving…" at once; the form closes only once the PATCH answered.
    await page.getByRole('form', { name: 'Change the campaign' }).waitFor({ state: 'detached' });
  };

  beforeAll(async () => {
    ensureConsoleBuilt();
    dir = await makeTempDir('herald-console-campaign-page-');
    cluster = await startEmbeddedCluster({
      dataDir: dir.path,
      uinSpaceBits: 16,
      http: { port: 0 },
      auth: { bootstrapAdminToken: ADMIN_TOKEN },
      // Below the 30 days the form knows, so the server's own maximum is what refuses 300 hours.
      tasks: { ...TEST_TASK_OPTIONS, maxTtlMs: 10 * 86_400_000 },
      campaigns: TEST_CAMPAIGN_OPTIONS,
    });
    const operator = await api<{ token: string }>('POST', '/api/v1/tokens', {
      name: 'Cam Paign',
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

  it('creates a campaign once when the answer to its creation is lost and the operator saves again (defect 1)', async () => {
    await page.getByRole('link', { name: 'Campaigns' }).click();
    await page.getByRole('link', { name: 'New campaign' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Saved once');
    await page.getByLabel('Time zone').fill('Europe/Paris');
    await page.getByLabel('Cron').fill('0 9 * * *');
    await page.locator('ol.fire-times li').nth(4).waitFor();
    await page.locator('#listFile').setInputFiles(listFile);
    await page.locator('.upload-result').waitFor();
    await page.getByLabel('Message', { exact: true }).fill('Only one of me, please.');
    // The first creation reaches the server, but its answer never reaches the browser.
    let lost = 0;
    await page.route('**/api/v1/campaigns', async (route) => {
      if (route.request().method() !== 'POST' || lost > 0) return route.continue();
      lost++;
      await route.fetch();
      await route.abort('connectionreset');
    });
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await page.getByText('Herald did not answer').waitFor();
    await waitFor(async () => (await campaignsNamed('Saved once')).length === 1, {
      timeoutMs: 10_000,
      message: 'the first try stored its campaign',
    });
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await page.waitForURL(/\/console\/campaigns\/\d+$/);
    await page.unroute('**/api/v1/campaigns');
    const stored = await campaignsNamed('Saved once');
    expect(stored).toHaveLength(1);
    expect(stored[0]!.idempotencyKey).toMatch(/^api:acme:/);
    campaignId = stored[0]!.id;
    expect(page.url()).toMatch(new RegExp(`/campaigns/${campaignId}$`));
  });

  it('runs the campaign now after a confirm naming its recipients; the task links back to the campaign', async () => {
    await page.locator('h1', { hasText: 'Saved once' }).waitFor();
    const run = page.getByRole('button', { name: 'Run now…' });
    // Escape keeps to the schedule: nothing runs, focus is back on the button.
    await run.click();
    const dialog = page.getByRole('dialog', { name: 'Run “Saved once” now?' });
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    // (Source text: the tests are type-checked without the DOM's types.)
    expect(await page.evaluate<string | null>('document.activeElement && document.activeElement.textContent')).toBe(
      'Run now…',
    );
    expect((await api<{ firings: unknown[] }>('GET', `/api/v1/campaigns/${campaignId}/firings`)).firings).toEqual([]);

    await run.click();
    await dialog.waitFor();
    expect(await dialog.innerText()).toContain('5 recipients');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, '50-campaign-run-now-confirm');
    await dialog.getByRole('button', { name: 'Yes, run now' }).click();
    await page.waitForURL(/\/console\/tasks\/\d+$/);
    const taskId = Number(/\/tasks\/(\d+)$/.exec(page.url())![1]);
    const { firings } = await api<{ firings: { taskId: number; manual?: boolean }[] }>(
      'GET',
      `/api/v1/campaigns/${campaignId}/firings`,
    );
    expect(firings).toMatchObject([{ taskId, manual: true }]);

    await page.getByRole('link', { name: `campaign ${campaignId}` }).click();
    await page.waitForURL(new RegExp(`/campaigns/${campaignId}$`));
    const row = page.locator('tr', { hasText: `task ${taskId}` });
    await row.waitFor();
    expect(await row.innerText()).toContain('run now');
  });

  it('changes the priority and the duration in hours, refusing a duration too long in the form’s words', async () => {
    await openEditor();
    await page.getByRole('radio', { name: 'Real-time' }).check();
    const duration = page.getByLabel('Duration');
    // Over the console's own maximum: said at once, next to the field, nothing sent.
    await duration.fill('1000');
    await page.getByRole('button', { name: 'Save changes' }).click();
    const durationError = page.locator('.field-error[data-field="edit-duration"]');
    expect(await durationError.innerText()).toBe('At most 720 hours (30 days).');
    // Within it, but over this server's maximum: the server's refusal, in hours, next to the field.
    await duration.fill('300');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await durationError.getByText('At most 240 hours (10 days).').waitFor();
    expect((await campaign()).template).toMatchObject({ priority: 'normal' });
    await duration.fill('2');
    await saveEdits();
    await page.getByText('realtime priority').waitFor();
    await page.getByText('valid 2 h').waitFor();
    expect((await campaign()).template).toMatchObject({ priority: 'realtime', ttlSeconds: 7200 });
  });

  it('replaces the list each firing sends to with an uploaded one', async () => {
    await openEditor();
    const before = (await campaign()).template.listId;
    expect(await page.getByTestId('current-list').innerText()).toContain(`${before} (5 recipients)`);
    const smaller = join(dir.path, 'smaller.csv');
    await writeFile(smaller, 'uin\n31\n32\n33\n');
    await page.locator('#listFile').setInputFiles(smaller);
    await page.locator('.upload-result', { hasText: '3 recipients' }).waitFor();
    await page.locator('form ol.fire-times li').nth(4).waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, '51-campaign-edit');
    await saveEdits();
    const after = await campaign();
    expect(after.template.listId).not.toBe(before);
    expect(after.projectedDailyReach.recipientsPerFiring).toBe(3);
    await page.locator('code', { hasText: after.template.listId }).waitFor();
    // The next run's confirm speaks of the new list's recipients.
    await page.getByRole('button', { name: 'Run now…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Run “Saved once” now?' });
    expect(await dialog.innerText()).toContain('3 recipients');
    await dialog.getByRole('button', { name: 'Keep to the schedule' }).click();
    await dialog.waitFor({ state: 'detached' });
  });

  it('runs the campaign once when the answer to the run is lost and the operator runs it again', async () => {
    const firings = async () =>
      (await api<{ firings: { taskId: number }[] }>('GET', `/api/v1/campaigns/${campaignId}/firings`)).firings;
    const before = (await firings()).length;
    const runNow = async () => {
      await page.getByRole('button', { name: 'Run now…' }).click();
      await page
        .getByRole('dialog', { name: 'Run “Saved once” now?' })
        .getByRole('button', { name: 'Yes, run now' })
        .click();
    };
    // The first run reaches the server, but its answer never reaches the browser.
    let lost = 0;
    await page.route('**/api/v1/campaigns/*/run', async (route) => {
      if (lost > 0) return route.continue();
      lost++;
      await route.fetch();
      await route.abort('connectionreset');
    });
    await runNow();
    await page.getByText('Herald did not answer').waitFor();
    await waitFor(async () => (await firings()).length === before + 1, {
      timeoutMs: 10_000,
      message: 'the first try did not fire the campaign',
    });
    await runNow();
    await page.waitForURL(/\/console\/tasks\/\d+$/);
    await page.unroute('**/api/v1/campaigns/*/run');
    const after = await firings();
    expect(after).toHaveLength(before + 1);
    expect(after[0]!.taskId).toBe(Number(/tasks\/(\d+)$/.exec(page.url())![1]));
  });
});
