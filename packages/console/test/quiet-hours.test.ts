import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { makeTempDir, TEST_TASK_OPTIONS, type TempDir } from '@herald/testing';
import type { Page } from 'playwright-core';
import type { Task } from '../src/api/types';
import type { AccountLocalTimeAnswer } from '../src/lib/account-local-time-form';
import { apiAs, ensureConsoleBuilt, launchBrowser, screenshot, seriousAxeViolations, type Browser } from './harness';

/**
 * Quiet hours' modes and an account's local-time defaults in the console
 * (issue 21), in headless Chromium against an embedded Herald: the
 * new-broadcast form queues pushes inside quiet hours for the next login
 * (the object form, checked through the API) and a clone carries it; the
 * task page says the mode and the login rule; the administration page reads
 * and saves an account's default zone, quiet hours and login rule, and a bad
 * value is said under its field and changes nothing. Only an admin sees it,
 * as only an admin may PUT them.
 */
const ADMIN_TOKEN = 'hrd_quiettest_console-quiet-hours-admin-secret-0123456';
const AUDIENCE = Array.from({ length: 50 }, (_, i) => 2000 + i);
const PATH = '/api/v1/accounts/acme/local-time';

describe('quiet hours and account local time in the console (Chromium)', () => {
  let dir: TempDir;
  let cluster: EmbeddedCluster;
  let browser: Browser;
  let page: Page;
  const admin = apiAs(() => cluster.url, ADMIN_TOKEN);
  const defaults = () => admin<AccountLocalTimeAnswer>('GET', PATH);

  beforeAll(async () => {
    ensureConsoleBuilt();
    dir = await makeTempDir('herald-console-quiet-');
    cluster = await startEmbeddedCluster({
      dataDir: dir.path,
      uinSpaceBits: 16,
      http: { port: 0 },
      executor: { ids: ['executor-1'] },
      auth: { bootstrapAdminToken: ADMIN_TOKEN },
      tasks: TEST_TASK_OPTIONS,
    });
    browser = await launchBrowser();
    page = browser.page;
    await page.goto(cluster.url + '/console/');
    await page.getByLabel('API token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Tasks' }).waitFor();
    await page.getByLabel('Account', { exact: true }).fill('acme');
    await page.getByLabel('Account', { exact: true }).press('Enter');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await cluster?.stop();
    await dir?.remove();
  });

  const newBroadcast = async (body: string) => {
    await page.goto(cluster.url + '/console/new');
    await page.getByRole('heading', { name: 'New broadcast' }).waitFor();
    await page.locator('#listFile').setInputFiles({
      name: 'audience.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from(AUDIENCE.join('\n') + '\n'),
    });
    await page.locator('.upload-result').waitFor();
    await page.locator('#body').fill(body);
    await page.locator('summary', { hasText: 'Advanced delivery' }).click();
    await page.getByLabel('Deliver at a local time').waitFor();
  };
  const send = async (): Promise<Task> => {
    await page.getByRole('button', { name: 'Send broadcast' }).click();
    await page.waitForURL(/\/console\/tasks\/\d+$/);
    const id = /\/tasks\/(\d+)$/.exec(page.url())![1]!;
    await page.getByRole('heading', { name: new RegExp(`^Task ${id}`) }).waitFor();
    return admin<Task>('GET', `/api/v1/tasks/${id}`);
  };
  const openDefaults = async () => {
    await page.goto(cluster.url + '/console/admin');
    await page.getByRole('heading', { name: 'Account local time' }).waitFor();
    await page.locator('#local-time-account').fill('acme');
    await page.getByRole('button', { name: 'Show local time' }).click();
    await page.locator('[data-local-time-now]').waitFor();
  };
  /** Saves a form the console must refuse: the error under `field`, the account's defaults as they were. */
  const refused = async (field: string): Promise<string> => {
    const before = await defaults();
    await page.getByRole('button', { name: 'Save local time' }).click();
    const error = page.locator(`.field-error[data-field="${field}"]`);
    await error.waitFor();
    expect(await page.locator('.saved').count()).toBe(0);
    expect(await defaults()).toEqual(before);
    return error.innerText();
  };

  it('queues pushes inside quiet hours for the next login: stored as the object form, shown, carried by a clone', async () => {
    await newBroadcast('Your parcel is on its way');
    await page.getByLabel('Keep quiet hours').check();
    await page.locator('#quietFrom').fill('22:00');
    await page.locator('#quietTo').fill('07:00');
    expect(await page.getByLabel('Hold until they end').isChecked()).toBe(true);
    await page.getByLabel('Queue for the next login').check();
    expect(await page.locator('[data-advanced-summary]').innerText()).toContain('quiet 22:00–07:00 (queued for login)');
    await screenshot(page, '67-quiet-hours-queue');
    const task = await send();
    expect(task.quietHours).toEqual({ from: '22:00', to: '07:00', during: 'offline' });
    expect(await page.locator('[data-setting="quiet-hours"]').innerText()).toBe(
      "22:00–07:00, each recipient's local time; a push inside them: queue for the next login",
    );
    expect(await page.locator('[data-setting="quiet-login"]').innerText()).toBe(
      'a login inside quiet hours delivers the inbox',
    );

    await page.getByRole('link', { name: 'Clone' }).click();
    await page.getByRole('heading', { name: 'New broadcast' }).waitFor();
    await page.locator('summary', { hasText: 'Advanced delivery' }).click();
    expect(await page.getByLabel('Queue for the next login').isChecked()).toBe(true);
    expect(await page.locator('#quietFrom').inputValue()).toBe('22:00');
    const clone = await send();
    expect(clone.quietHours).toEqual({ from: '22:00', to: '07:00', during: 'offline' });
  }, 90_000);

  it('keeps sending the string form when quiet hours hold', async () => {
    await newBroadcast('Held at night');
    await page.getByLabel('Keep quiet hours').check();
    const task = await send();
    expect(task.quietHours).toEqual({ from: '22:00', to: '08:00' });
    expect(await page.locator('[data-setting="quiet-hours"]').innerText()).toMatch(/a push inside them: hold until/);
  }, 60_000);

  it("saves an account's defaults; a task created afterwards shows the account's mode and login rule", async () => {
    await openDefaults();
    expect(await page.locator('[data-local-time-now]').innerText()).toMatch(
      /^acme now: default zone none \(UTC\); quiet hours none; a login inside quiet hours: deliver the inbox\./,
    );
    await page.locator('#account-defaultTimeZone').fill('Europe/Berlin');
    await page.getByLabel('Default quiet hours').check();
    await page.locator('#account-quietFrom').fill('21:30');
    await page.locator('#account-quietTo').fill('07:00');
    await page.locator('#account-quietDuring-offline').check();
    await page.locator('#account-loginDelivery').selectOption('hold');
    await page.getByRole('button', { name: 'Save local time' }).click();
    await page.locator('.saved', { hasText: 'Saved.' }).waitFor();
    expect(await defaults()).toEqual({
      accountId: 'acme',
      defaultTimeZone: 'Europe/Berlin',
      quietHours: { hours: '21:30-07:00', during: 'offline' },
      loginDelivery: 'hold',
    });
    expect(await page.locator('[data-local-time-now]').innerText()).toMatch(
      /^acme now: default zone Europe\/Berlin; quiet hours 21:30–07:00, queue for the next login; a login inside quiet hours: keep the inbox for later\./,
    );
    await page.locator('section[aria-labelledby="local-time-heading"]').scrollIntoViewIfNeeded();
    await screenshot(page, '68-admin-account-local-time');

    // Reloaded, the form shows what is stored.
    await openDefaults();
    expect(await page.locator('#account-defaultTimeZone').inputValue()).toBe('Europe/Berlin');
    expect(await page.locator('#account-quietDuring-offline').isChecked()).toBe(true);
    expect(await page.locator('#account-loginDelivery').inputValue()).toBe('hold');

    // A broadcast without its own quiet hours keeps the account's, with the login rule copied onto it.
    await newBroadcast('Under the account rules');
    expect(await page.locator('.field .hint', { hasText: "The account's quiet hours" }).innerText()).toContain(
      '21:30–07:00, queue for the next login',
    );
    const task = await send();
    expect(task.quietHours).toEqual({ from: '21:30', to: '07:00', during: 'offline', atLogin: 'hold' });
    expect(await page.locator('[data-setting="quiet-login"]').innerText()).toBe(
      'a login inside quiet hours keeps the inbox for later',
    );
    await page.locator('.panel.settings').scrollIntoViewIfNeeded();
    await screenshot(page, '69-task-quiet-hours-login-hold');
  }, 90_000);

  it('says a bad default under its field and changes nothing', async () => {
    await openDefaults();
    await page.locator('#account-quietFrom').fill('08:00');
    await page.locator('#account-quietTo').fill('08:00');
    expect(await refused('account-quietFrom')).toMatch(/whole day/);
    await screenshot(page, '70-admin-account-local-time-refused');
    await page.locator('#account-quietFrom').fill('22:00');
    await page.locator('#account-defaultTimeZone').fill('Mars/Base');
    expect(await refused('account-defaultTimeZone')).toMatch(/^“Mars\/Base” is not a time zone/);
    await page.locator('#account-defaultTimeZone').fill('+14:30');
    expect(await refused('account-defaultTimeZone')).toMatch(/is not a time zone/);
  }, 60_000);

  it('clears the defaults: an empty zone and no quiet hours save as none', async () => {
    await openDefaults();
    await page.locator('#account-defaultTimeZone').fill('');
    await page.getByLabel('Default quiet hours').uncheck();
    await page.locator('#account-loginDelivery').selectOption('deliver');
    await page.getByRole('button', { name: 'Save local time' }).click();
    await page.locator('.saved').waitFor();
    expect(await defaults()).toEqual({
      accountId: 'acme',
      defaultTimeZone: null,
      quietHours: null,
      loginDelivery: 'deliver',
    });
  }, 60_000);

  it('passes axe on the defaults form and the task page, in dark mode and on a 390 px phone', async () => {
    await admin('PUT', PATH, { quietHours: { hours: '22:00-08:00', during: 'offline' }, loginDelivery: 'hold' });
    const { tasks } = await admin<{ tasks: Task[] }>('GET', '/api/v1/tasks?accountId=acme');
    const quiet = tasks.find((t) => t.quietHours?.atLogin === 'hold')!;
    const found: Record<string, unknown> = {};
    try {
      await page.emulateMedia({ colorScheme: 'dark' });
      for (const width of [1360, 390]) {
        await page.setViewportSize({ width, height: width > 400 ? 860 : 844 });
        await openDefaults();
        await page.locator('#account-quietFrom').fill('08:00');
        await page.locator('#account-quietTo').fill('08:00');
        await page.getByRole('button', { name: 'Save local time' }).click();
        await page.locator('.field-error[data-field="account-quietFrom"]').waitFor();
        if (width === 390) {
          await page.locator('section[aria-labelledby="local-time-heading"]').scrollIntoViewIfNeeded();
          await screenshot(page, '71-dark-phone-account-local-time');
        }
        const form = await seriousAxeViolations(page);
        if (form.length > 0) found[`defaults ${width}`] = form;
        await page.goto(`${cluster.url}/console/tasks/${quiet.id}`);
        await page.locator('[data-setting="quiet-login"]').waitFor();
        const taskPage = await seriousAxeViolations(page);
        if (taskPage.length > 0) found[`task ${width}`] = taskPage;
      }
    } finally {
      await page.emulateMedia({ colorScheme: 'light' });
      await page.setViewportSize({ width: 1360, height: 860 });
      await admin('PUT', PATH, {});
    }
    expect(found).toEqual({});
  }, 120_000);

  it('shows the defaults form only to admins, as only an admin may set them', async () => {
    const operator = await admin<{ token: string }>('POST', '/api/v1/tokens', {
      name: 'Olga Operator',
      role: 'operator',
      accounts: ['acme'],
    });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API token').fill(operator.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Olga Operator').waitFor();
    await page.goto(cluster.url + '/console/admin');
    await page.getByText('Only an admin token administers Herald.').waitFor();
    expect(await page.getByRole('heading', { name: 'Account local time' }).count()).toBe(0);
    expect(await page.locator('#account-defaultTimeZone').count()).toBe(0);
  }, 60_000);
});
