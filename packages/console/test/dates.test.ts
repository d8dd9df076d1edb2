import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { FileDeliverySink } from '@herald/executor';
import { makeTempDir, type TempDir } from '@herald/testing';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { ensureConsoleBuilt, launchBrowser, screenshot, type Browser } from './harness';

/**
 * Issue 22, "Consistency": 24-hour ISO dates and times everywhere. The
 * browser's own date pickers are 12-hour mm/dd/yyyy in en-US (the locale
 * this Chromium runs in), so the console has none: dates and times are
 * typed as YYYY-MM-DD HH:MM, checked in the operator's words, and every
 * time shown reads the same way.
 */
const ADMIN_TOKEN = 'hrd_datestest_console-dates-test-admin-secret-012345';
const ISO_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

describe('console dates and times', () => {
  let dir: TempDir;
  let cluster: EmbeddedCluster;
  let browser: Browser;
  let page: Page;

  const open = async (path: string, heading: string | RegExp) => {
    await page.goto(`${cluster.url}/console${path}`);
    await page.getByRole('heading', { name: heading, level: 1 }).first().waitFor();
  };

  /** Inputs that open the browser's own (locale-dependent) date or time picker. */
  const pickers = () =>
    page.evaluate<number>(
      `document.querySelectorAll('input[type=date], input[type=datetime-local], input[type=time], input[type=month], input[type=week]').length`,
    );

  beforeAll(async () => {
    ensureConsoleBuilt();
    dir = await makeTempDir('herald-console-dates-');
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
    // Leaving a half-written form asks first (drafts, tested in guard.test.ts): here the answer is always yes.
    page.on('dialog', (dialog) => void dialog.accept());
    await page.goto(cluster.url + '/console/');
    await page.getByLabel('API token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Tasks' }).waitFor();
    const account = page.getByRole('combobox', { name: 'Account', exact: true });
    await account.fill('acme');
    await account.press('Enter');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await cluster?.stop();
    await dir?.remove();
  });

  it('takes the send time as YYYY-MM-DD HH:MM on a 24-hour clock and says what is wrong with any other', async () => {
    await open('/new', 'New broadcast');
    expect(await pickers()).toBe(0);
    await page
      .locator('#listFile')
      .setInputFiles({ name: 'few.txt', mimeType: 'text/plain', buffer: Buffer.from('1\n2\n3\n') });
    await page.locator('.upload-result').waitFor();
    await page.getByLabel('Message', { exact: true }).fill('Tonight at half past nine.');
    await page.getByRole('radio', { name: 'At', exact: true }).check();
    const sendAt = page.getByRole('textbox', { name: 'Send at' });
    expect(await sendAt.getAttribute('placeholder')).toBe('YYYY-MM-DD HH:MM');
    const error = page.locator('.field-error').filter({ hasText: /./ }).first();
    const refused = async (typed: string, message: string) => {
      await sendAt.fill(typed);
      await page.getByRole('button', { name: 'Schedule broadcast' }).click();
      await error.getByText(message, { exact: true }).waitFor();
    };
    await refused('12/01/2027 09:30 PM', 'Write it as YYYY-MM-DD HH:MM, on a 24-hour clock (e.g. 2026-12-01 09:30).');
    await refused('2027-02-29 21:30', 'No such date: 2027-02-29.');
    await refused('2027-03-01 24:30', 'No such time: 24:30 (hours 00 to 23, minutes 00 to 59).');
    await screenshot(page, '36-send-at-24-hour');
    expect((await cluster.store.listTasks({ limit: 10 })).tasks).toEqual([]);

    // A day from now at 21:30 in the browser's zone: the task is scheduled for that instant, and shown so.
    const day = await page.evaluate<string>(`(() => {
      const d = new Date(Date.now() + 86400000);
      return d.getFullYear() + '-' + String(d.getMonth() + 1).padStart(2, '0') + '-' + String(d.getDate()).padStart(2, '0');
    })()`);
    const expected = await page.evaluate<number>(`new Date('${day}T21:30:00').getTime()`);
    await sendAt.fill(`${day} 21:30`);
    await page.getByRole('button', { name: 'Schedule broadcast' }).click();
    await page.waitForURL(/\/console\/tasks\/\d+$/);
    const id = Number(/tasks\/(\d+)$/.exec(page.url())![1]);
    expect((await cluster.store.getTask(id))?.sendAt).toBe(expected);
    const shown = page.locator('dt', { hasText: 'Send at' }).locator('xpath=following-sibling::dd[1]');
    await shown.getByText(`${day} 21:30:00`).waitFor();
  });

  it('shows every time on the task list and a task as YYYY-MM-DD HH:MM:SS, never AM or PM', async () => {
    await open('/tasks', 'Tasks');
    expect(await pickers()).toBe(0);
    await page.locator('table.tasks td.time').first().waitFor();
    const cells = await page.locator('table.tasks td.time').allInnerTexts();
    expect(cells.length).toBeGreaterThan(0);
    for (const cell of cells) expect(cell).toMatch(ISO_TIME);
    expect(await page.locator('main').innerText()).not.toMatch(/\b[AP]M\b/);
    await page.locator('table.tasks tbody tr td.num a').first().click();
    await page.locator('h1 .badge').waitFor();
    expect(await page.locator('main').innerText()).not.toMatch(/\b[AP]M\b/);
  });

  it('filters the task list by creation dates typed as YYYY-MM-DD, and says what is wrong with others', async () => {
    await open('/tasks', 'Tasks');
    const from = page.getByRole('textbox', { name: 'Created from' });
    await from.fill('2026-11-31');
    await page.locator('.field-error[data-field="date-from"]', { hasText: 'No such date: 2026-11-31.' }).waitFor();
    expect(await page.locator('table.tasks').count()).toBe(0);
    await from.fill('11/30/2026');
    await page.locator('.field-error[data-field="date-from"]', { hasText: 'A date as YYYY-MM-DD' }).waitFor();
    const today = await page.evaluate<string>(`(() => {
      const d = new Date();
      return d.getFullYear() + '-' + String(d.getMonth() + 1).padStart(2, '0') + '-' + String(d.getDate()).padStart(2, '0');
    })()`);
    await from.fill(today);
    await page.locator('table.tasks tbody tr').first().waitFor();
    expect(await page.locator('.field-error[data-field="date-from"]').count()).toBe(0);
  });

  it('has no locale date picker on the campaign form either', async () => {
    await open('/campaigns/new', 'New campaign');
    expect(await pickers()).toBe(0);
  });
});
