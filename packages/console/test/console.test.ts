import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeRecipientList } from '@herald/core/recipient-list';
import { subtractSorted } from '@herald/core/uins';
import { TypedArrayBitmap } from '@herald/core/presence';
import { syntheticAudience } from '@herald/audience';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { FileDeliverySink } from '@herald/executor';
import { makeTempDir, TEST_CAMPAIGN_OPTIONS, TEST_TASK_OPTIONS, waitFor, type TempDir } from '@herald/testing';
import type { Page } from 'playwright-core';
import { ensureConsoleBuilt, launchBrowser, MeteredGateway, screenshot, type Browser } from './harness';

/**
 * The operator console driven in headless Chromium against a real embedded
 * Herald: sign in, upload a list, create a broadcast and see it complete
 * with the right counts, pause and resume another mid-send, and visit every
 * page. Each page's screenshot is saved (docs/screenshots, shown by
 * docs/operator-guide.md).
 */
const ADMIN_TOKEN = 'hrd_consoletest_console-browser-test-admin-secret-0123';
const uinSpaceBits = 22;
const fmt = (n: number) => n.toLocaleString('en-US');

describe('operator console in headless Chromium', () => {
  let dir: TempDir;
  let gateway: MeteredGateway;
  let cluster: EmbeddedCluster;
  let browser: Browser;
  let page: Page;
  let listFile: string;
  let operatorToken: string;

  const audience = syntheticAudience({
    recipients: 20_000,
    onlineFraction: 0.35,
    uinLimit: 2 ** uinSpaceBits,
    seed: 5,
  });
  const kept = subtractSorted(audience.distinct.slice(), audience.blacklist);
  const offline = subtractSorted(kept.slice(), audience.online);
  const expected = {
    total: audience.list.length,
    duplicate: audience.list.length - audience.distinct.length,
    blacklisted: audience.distinct.length - kept.length,
    kept: kept.length,
    delivered: kept.length - offline.length,
    offline: offline.length,
  };

  const api = async <T>(method: string, path: string, body?: unknown, token = ADMIN_TOKEN): Promise<T> => {
    const response = await fetch(cluster.url + path, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
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
  const taskState = async (id: number) => (await cluster.store.getTask(id))?.state;

  beforeAll(async () => {
    ensureConsoleBuilt();
    dir = await makeTempDir('herald-console-');
    gateway = new MeteredGateway(new FileDeliverySink(join(dir.path, 'deliveries')));
    const online = new TypedArrayBitmap(2 ** uinSpaceBits);
    for (const uin of audience.online) online.setOnline(uin, true);
    cluster = await startEmbeddedCluster(
      {
        dataDir: dir.path,
        uinSpaceBits,
        http: { port: 0 },
        dispatcher: { batchSize: 500, unitSize: 5000 },
        executor: { ids: ['executor-1', 'executor-2'] },
        transport: { highWaterMark: 4 },
        offline: { rangeBits: 12 },
        auth: { bootstrapAdminToken: ADMIN_TOKEN },
        tasks: TEST_TASK_OPTIONS,
        campaigns: TEST_CAMPAIGN_OPTIONS,
      },
      { gateway, online },
    );
    await api('PUT', '/api/v1/blacklists/global', encodeRecipientList(audience.blacklist));
    // The operator signs in with a token of their own, bound to account acme.
    operatorToken = (
      await api<{ token: string }>('POST', '/api/v1/tokens', {
        name: 'Olga Operator',
        role: 'operator',
        accounts: ['acme', 'acme_news'],
      })
    ).token;
    // The list as an operator has it: CSV with a header, one id per row, and a few bad rows.
    listFile = join(dir.path, 'subscribers.csv');
    const rows = Array.from(audience.list, (uin) => String(uin));
    rows.splice(100, 0, 'not-a-number', '-5', '12.5');
    await writeFile(listFile, 'uin\n' + rows.join('\n') + '\n');
    browser = await launchBrowser();
    page = browser.page;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    gateway?.open();
    await cluster?.stop();
    await dir?.remove();
  });

  const stateBadge = () => page.locator('h1 .badge').first();

  it('refuses a bad token and signs in with a good one', async () => {
    await page.goto(cluster.url + '/');
    await page.getByLabel('API token').waitFor();
    await screenshot(page, '01-sign-in');
    await page.getByLabel('API token').fill('hrd_nobody_not-a-real-secret-000000000000000000000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('[data-field="token"]').getByText('not valid').waitFor();

    await page.getByLabel('API token').fill(operatorToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Tasks' }).waitFor();
    expect(await page.locator('.who').innerText()).toContain('Olga Operator');
    // An operator picks among the accounts of their token, or all of them.
    const picker = page.getByRole('combobox', { name: 'Account', exact: true });
    expect(await picker.locator('option').allInnerTexts()).toEqual(['all my accounts', 'acme', 'acme_news']);
    await picker.selectOption('acme');
  });

  it('shows every validation error next to its field', async () => {
    await page.getByRole('link', { name: 'New broadcast' }).first().click();
    await page.getByRole('heading', { name: 'New broadcast' }).waitFor();
    await page.getByLabel('Title').fill('x'.repeat(300));
    await page.locator('input[name="when"]').nth(1).check();
    await page.getByLabel('Duration').fill('-2');
    await page.getByRole('button', { name: 'Schedule broadcast' }).click();
    const errorOf = (field: string) => page.locator(`.field-error[data-field="${field}"]`);
    expect(await errorOf('listId').innerText()).toContain('Upload a recipient list');
    expect(await errorOf('title').innerText()).toContain('At most 256');
    expect(await errorOf('body').innerText()).toContain('Write the message');
    expect(await errorOf('sendAt').innerText()).toContain('Write the date and time to send at: YYYY-MM-DD HH:MM');
    expect(await errorOf('duration').innerText()).toContain('positive number');
    await screenshot(page, '03-new-broadcast-errors');
    // Fixing a field clears its error at once.
    await page.getByLabel('Title').fill('Autumn sale');
    await errorOf('title').waitFor({ state: 'detached' });
  });

  it('previews a personalised message as the server renders it for a sample user, and shows where a bad template fails', async () => {
    // The form above was left half written on purpose: leaving it asks first (issue 22, drafts).
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('link', { name: 'Tasks' }).first().click();
    await page.getByRole('heading', { name: 'Tasks' }).waitFor();
    await page.getByRole('link', { name: 'New broadcast' }).first().click();
    await page.getByRole('heading', { name: 'New broadcast' }).waitFor();
    await page.getByLabel('Title', { exact: true }).fill('For {{uin}}');
    await page.getByLabel('Message', { exact: true }).fill('Hello {{region|default:"there"}}!');
    await page.getByLabel('Personalised').check();
    await page.getByLabel('Sample user').fill('42');
    const preview = page.getByLabel('message preview');
    // The operator's preview takes the defaults: user attributes are for admins.
    // Checking Personalised renders for user 0 at once; the sample user's render follows: wait for it.
    await preview.locator('.msg-title', { hasText: /^For 42$/ }).waitFor();
    await preview.getByText('Hello there!').waitFor();
    await page.getByText('with the defaults').waitFor();
    await screenshot(page, '12-personalised-preview');
    await page.getByLabel('Message', { exact: true }).fill('Hello {{name}}');
    await page.getByText("Message, at character 9: unknown variable 'name'").waitFor();
  });

  let firstTaskId: number;

  it('uploads a list with a progress bar, creates a broadcast and sees it complete with the right counts', async () => {
    await page.locator('#listFile').setInputFiles(listFile);
    const result = page.locator('.upload-result');
    await result.waitFor();
    expect(await result.innerText()).toContain(`${fmt(expected.total)} recipients`);
    expect(await result.innerText()).toContain('3 bad line(s) skipped');
    expect(await page.getByRole('progressbar', { name: 'upload progress' }).getAttribute('aria-valuenow')).toBe('100');

    await page.getByLabel('Message', { exact: true }).fill('Everything is 20% off until Sunday.');
    await page.locator('input[name="when"]').first().check();
    await page.getByLabel('Duration').fill('24');
    // Pre-delivery: delivered now, shown on devices in an hour (datetime-local, the browser's zone).
    const inAnHour = new Date(Date.now() + 3_600_000);
    const local = new Date(inAnHour.getTime() - inAnHour.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    await page.getByLabel('Deliver ahead; show it at').check();
    await page.getByLabel('Display time').fill(local);
    expect(await page.getByLabel('message preview').innerText()).toContain('Everything is 20% off');
    await screenshot(page, '04-new-broadcast');
    await page.getByRole('button', { name: 'Send broadcast' }).click();

    await page.waitForURL(/\/console\/tasks\/\d+$/);
    firstTaskId = Number(/tasks\/(\d+)$/.exec(page.url())![1]);
    await page.locator('h1 .badge', { hasText: 'COMPLETED' }).waitFor({ timeout: 60_000 });
    const count = (name: string) => page.locator(`[data-count="${name}"]`).innerText();
    expect(await count('delivered')).toBe(fmt(expected.delivered));
    expect(await count('offline')).toBe(fmt(expected.offline));
    expect(await page.locator('[data-reason="duplicate"]').innerText()).toBe(fmt(expected.duplicate));
    expect(await page.locator('[data-reason="blacklisted"]').innerText()).toBe(fmt(expected.blacklisted));
    for (const stage of ['preprocessing', 'dispatch', 'delivery'])
      expect(await page.locator(`[data-stage="${stage}"] .stage-status`).innerText()).toMatch(/done/i);
    await screenshot(page, '05-task-completed');

    // The page shows what the store holds.
    const task = (await cluster.store.getTask(firstTaskId))!;
    expect(task.report).toMatchObject({
      total: expected.total,
      kept: expected.kept,
      delivered: expected.delivered,
      offline: expected.offline,
    });
    expect(task.accountId).toBe('acme');
    expect(task.displayAt).toBe(Date.parse(local));
    expect(await page.locator('dt', { hasText: 'Shown at' }).count()).toBe(1);
  });

  it('pauses and resumes another broadcast mid-send, stage by stage', async () => {
    gateway.hold();
    await page.getByRole('link', { name: 'New broadcast' }).first().click();
    await page.locator('#listFile').setInputFiles(listFile);
    await page.locator('.upload-result').waitFor();
    await page.getByLabel('Title').fill('Flash news');
    await page.getByLabel('Message', { exact: true }).fill('Doors open at nine tonight.');
    await page.locator('input[name="priority"]').nth(1).check();
    await page.getByRole('button', { name: 'Send broadcast' }).click();
    await page.waitForURL(/\/console\/tasks\/\d+$/);
    const taskId = Number(/tasks\/(\d+)$/.exec(page.url())![1]);

    // Let batches through a few at a time, each step seen by the page (it polls once a second): the bars move and the rate chart draws.
    const delivered = page.locator('[data-count="delivered"]');
    for (let step = 0; step < 8; step++) {
      const before = await delivered.innerText();
      gateway.allow(2);
      await waitFor(async () => (await delivered.innerText()) !== before, {
        timeoutMs: 30_000,
        message: `step ${step}: the page did not show the batches let through`,
      });
    }
    await page.locator('svg.chart path.line').waitFor();
    await stateBadge().getByText('SENDING').waitFor();
    await screenshot(page, '06-task-sending');

    await page.getByRole('button', { name: 'Pause' }).click();
    await page.locator('h1 .badge', { hasText: 'PAUSED' }).waitFor({ timeout: 30_000 });
    expect(await taskState(taskId)).toBe('PAUSED');
    expect(await page.getByRole('button', { name: 'Resume' }).isEnabled()).toBe(true);
    await screenshot(page, '07-task-paused');

    gateway.open();
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.locator('h1 .badge', { hasText: 'COMPLETED' }).waitFor({ timeout: 60_000 });
    const task = (await cluster.store.getTask(taskId))!;
    expect(task.priority).toBe('realtime');
    expect(task.report.delivered + task.report.offline).toBe(task.report.kept);
    expect(await page.locator('[data-count="delivered"]').innerText()).toBe(fmt(task.report.delivered));
  });

  it('lists tasks newest first, filtered by state and creation date', async () => {
    await page.getByRole('link', { name: 'Tasks' }).first().click();
    await page.getByRole('heading', { name: 'Tasks' }).waitFor();
    await page.locator('table.tasks tbody tr').nth(1).waitFor();
    expect(await page.locator('table.tasks tbody tr').count()).toBe(2);
    await screenshot(page, '02-tasks');

    await page.getByLabel('State filter').selectOption('COMPLETED');
    await page.waitForURL(/state=COMPLETED/);
    await page.getByLabel('Rows').selectOption('25');
    await waitFor(async () => (await page.locator('table.tasks tbody tr').count()) === 2, {
      timeoutMs: 10_000,
      message: 'the filtered list did not show both completed tasks',
    });
    await page.getByLabel('State filter').selectOption('PAUSED');
    await page.getByText('No task matches these filters.').waitFor();
    await page.getByLabel('State filter').selectOption('');
    // Newest first, and the creation date filter asks the server.
    await waitFor(async () => (await page.locator('table.tasks tbody tr').count()) === 2, {
      timeoutMs: 10_000,
      message: 'the unfiltered list did not come back',
    });
    expect(await page.locator('table.tasks tbody tr td.num a').allInnerTexts()).toEqual([
      String(firstTaskId + 1),
      String(firstTaskId),
    ]);
    const day = (offset: number) => {
      const d = new Date(Date.now() + offset * 86_400_000);
      return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
    };
    await page.getByLabel('Created from').fill(day(1));
    await page.getByText('No task matches these filters.').waitFor();
    await page.getByLabel('Created from').fill(day(0));
    await page.getByLabel('Created to').fill(day(0));
    await page.locator('table.tasks tbody tr').nth(1).waitFor();
    expect(page.url()).toContain(`from=${day(0)}`);
    // The account is the top bar's picker, the page's only account control: another account, another list.
    expect(await page.getByLabel('Account filter').count()).toBe(0);
    const picker = page.getByRole('combobox', { name: 'Account', exact: true });
    await picker.selectOption('acme_news');
    await page.getByText('No task matches these filters.').waitFor();
    expect(await page.locator('[data-account-scope]').innerText()).toContain('Account acme_news');
    // An operator of several accounts may list all of them at once (the API lists only the token's accounts).
    await picker.selectOption({ label: 'all my accounts' });
    await page.locator('[data-account-scope]', { hasText: 'All your accounts' }).waitFor();
    await page.locator('table.tasks tbody tr').nth(1).waitFor();
    expect(await page.locator('table.tasks tbody tr td.num a').allInnerTexts()).toEqual([
      String(firstTaskId + 1),
      String(firstTaskId),
    ]);
    await picker.selectOption('acme');
    await page.locator('table.tasks tbody tr').nth(1).waitFor();
    await screenshot(page, '54-tasks-account-selector');
    // A link to an account this operator does not have shows theirs, and says why.
    await page.goto(page.url().replace(/\?.*$/, '?account=globex'));
    await page.locator('.field-error[data-field="accountFilter"]', { hasText: 'not one of yours' }).waitFor();
    await page.locator('table.tasks tbody tr').nth(1).waitFor();
    expect(await picker.inputValue()).toBe('acme');
    // A row opens its task.
    await page.locator('table.tasks tbody tr').last().click();
    await page.waitForURL(new RegExp(`/console/tasks/${firstTaskId}$`));
  });

  it('schedules a broadcast for later and cancels it, after asking once more', async () => {
    await page.getByRole('link', { name: 'New broadcast' }).first().click();
    await page.locator('#listFile').setInputFiles(listFile);
    await page.locator('.upload-result').waitFor();
    await page.getByLabel('Message', { exact: true }).fill('See you tomorrow.');
    const tomorrow = new Date(Date.now() + 86_400_000);
    await page.locator('input[name="when"]').nth(1).check();
    await page
      .locator('#sendAt')
      .fill(new Date(tomorrow.getTime() - tomorrow.getTimezoneOffset() * 60_000).toISOString().slice(0, 16));
    await page.getByRole('button', { name: 'Schedule broadcast' }).click();
    await page.waitForURL(/\/console\/tasks\/\d+$/);
    const taskId = Number(/tasks\/(\d+)$/.exec(page.url())![1]);
    await page.locator('h1 .badge', { hasText: 'SCHEDULED' }).waitFor();
    await page.locator('[data-stage="preprocessing"] .stage-status', { hasText: 'waiting' }).waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByText(`Cancel task ${taskId}? It cannot be resumed.`).waitFor();
    await page.getByRole('button', { name: 'Yes, cancel' }).click();
    await page.locator('h1 .badge', { hasText: 'CANCELLED' }).waitFor();
    expect(await taskState(taskId)).toBe('CANCELLED');
    expect(await page.getByRole('button', { name: 'Pause' }).isDisabled()).toBe(true);
  });

  it("builds an audience from the account's followers, or says this Herald has no audience sources", async () => {
    const followers = Array.from(kept.subarray(0, 300));
    const feed = await fetch(cluster.url + '/api/v1/follows', {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        changes: followers.map((uin) => ({ accountId: 'acme', uin, following: true, at: Date.now() })),
      }),
    });
    await page.getByRole('link', { name: 'New broadcast' }).first().click();
    await page.getByLabel('All followers of the account').check();
    await page.getByRole('button', { name: 'Build the list of followers' }).click();
    if (feed.status === 404) {
      // The embedded profile wires no audience source (yet): the console says so where the list would be.
      await page.locator('.field-error[data-field="listId"]', { hasText: 'no audience sources' }).waitFor();
    } else {
      expect(feed.status).toBe(200);
      await page.locator('.upload-result', { hasText: `${fmt(followers.length)} recipients` }).waitFor();
    }
  });

  it('creates a campaign with a live preview of its next five fire times, and sees it fire', async () => {
    // A half-written broadcast may be open: leaving it asks first (issue 22, drafts).
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('link', { name: 'Campaigns' }).click();
    await page.getByRole('heading', { name: 'Campaigns' }).waitFor();
    await page.getByRole('link', { name: 'New campaign' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Every second check');
    await page.getByLabel('Time zone').fill('Europe/Paris');
    await page.getByLabel('Cron').fill('0 25 * * *');
    // The server's parser refuses it while the operator types, under the field.
    expect(await page.locator('.field-error[data-field="cron"]').innerText()).toContain('hour');
    await page.getByLabel('Cron').fill('0 9 * * 1-5');
    await page.locator('ol.fire-times li').nth(4).waitFor();
    expect(await page.locator('ol.fire-times li').first().innerText()).toContain('09:00:00');
    await page.locator('#listFile').setInputFiles(listFile);
    await page.locator('.upload-result').waitFor();
    await page.getByLabel('Message', { exact: true }).fill('Your morning digest is ready.');
    await screenshot(page, '08-campaign-new');
    // Every second, so the test sees it fire.
    await page.getByLabel('Cron').fill('* * * * * *');
    await page.locator('ol.fire-times li').nth(4).waitFor();
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await page.waitForURL(/\/console\/campaigns\/\d+$/);
    await page.locator('h1 .badge', { hasText: 'enabled' }).waitFor();
    expect(await page.locator('ol.fire-times li').count()).toBe(5);
    await page
      .locator('td', { hasText: /^task \d+$/ })
      .first()
      .waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.locator('h1 .badge', { hasText: 'disabled' }).waitFor();
    await page.getByText('No upcoming fire times').waitFor();
    // Change its schedule: the editor previews the new one; enabled again, the page shows it.
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Cron', { exact: true }).fill('0 8 * * *');
    // The old schedule's five times are still listed until the preview answers: wait for the new first one.
    await page.locator('form ol.fire-times li').first().filter({ hasText: '08:00:00' }).waitFor();
    await page.locator('form ol.fire-times li').nth(4).waitFor();
    expect(await page.locator('form ol.fire-times li').first().innerText()).toContain('08:00:00');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('button', { name: 'Save changes' }).waitFor({ state: 'detached' });
    // The editor closes before the page has the saved campaign back: wait for the new schedule, then count it.
    await page.locator('code', { hasText: '0 8 * * *' }).first().waitFor();
    expect(await page.locator('code', { hasText: '0 8 * * *' }).count()).toBe(1);
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.locator('h1 .badge', { hasText: 'enabled' }).waitFor();
    await page.locator('ol.fire-times li').nth(4).waitFor();
    expect(await page.locator('ol.fire-times li').first().innerText()).toContain('08:00:00');
    await screenshot(page, '09-campaign');
    await page.getByRole('link', { name: 'Campaigns' }).first().click();
    await page.locator('table.campaigns tbody tr').first().waitFor();
    await screenshot(page, '10-campaigns');
  });

  it('pages the task list on the server, older and back to newer', async () => {
    await page.goto(`${cluster.url}/console/tasks?limit=1`);
    const rowId = async () => Number(await page.locator('table.tasks tbody tr td.num a').innerText());
    await page.locator('table.tasks tbody tr').first().waitFor();
    const newest = Math.max(...(await cluster.store.listTasks({ order: 'desc', limit: 1 })).tasks.map((t) => t.id));
    expect(await rowId()).toBe(newest);
    await page.getByRole('button', { name: 'Older →' }).click();
    await waitFor(async () => (await rowId()) === newest - 1, {
      timeoutMs: 10_000,
      message: 'Older did not show the next older task',
    });
    await page.getByRole('button', { name: 'Older →' }).click();
    await waitFor(async () => (await rowId()) === newest - 2, { timeoutMs: 10_000, message: 'Older did not go on' });
    await page.getByRole('button', { name: '← Newer' }).click();
    await waitFor(async () => (await rowId()) === newest - 1, {
      timeoutMs: 10_000,
      message: 'Newer did not come back',
    });
    await page.getByRole('button', { name: '← Newer' }).click();
    await waitFor(async () => (await rowId()) === newest, {
      timeoutMs: 10_000,
      message: 'Newer did not reach the newest task',
    });
    expect(await page.getByRole('button', { name: '← Newer' }).isDisabled()).toBe(true);
  });

  it('opens a page by its address after a reload, still signed in', async () => {
    await page.goto(`${cluster.url}/console/tasks/${firstTaskId}`);
    await page.locator('h1 .badge', { hasText: 'COMPLETED' }).waitFor();
    expect(await page.locator('.who').innerText()).toContain('Olga Operator');
  });

  it('shows the cluster to an admin only', async () => {
    await page.getByRole('link', { name: 'Cluster' }).click();
    await page.getByText('Only an admin token can see the cluster').waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Signed in again on the page it was on.
    const member = page.locator('tr[data-member="scheduler-1"]');
    await member.waitFor();
    expect(await member.innerText()).toContain('WORKING');
    expect(await member.innerText()).toContain('100.0%');
    // Both executors report their host's load every second (load-aware dispatch).
    for (const id of ['executor-1', 'executor-2']) {
      const host = page.locator(`tr[data-host="${id}"]`);
      await host.waitFor();
      expect(await host.innerText()).toMatch(/% of \d+ cores/);
    }
    await screenshot(page, '11-cluster');
  });
});
