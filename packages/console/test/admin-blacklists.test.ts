import { readFile } from 'node:fs/promises';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { makeTempDir, type TempDir } from '@herald/testing';
import type { Page } from 'playwright-core';
import { ensureConsoleBuilt, launchBrowser, screenshot, type Browser } from './harness';

/**
 * The administration page's blacklists and the audit log by time (issue 22,
 * "Administration"), in headless Chromium against a real embedded Herald:
 * replace the global and an account's blacklist by uploading a file (bad
 * lines named by number), see their counts and when they changed, download
 * them, clear one after a confirm; filter the audit log by a time window
 * typed on a 24-hour clock. One browser and one Herald for the file.
 */
const ADMIN_TOKEN = 'hrd_blacktest_console-blacklist-test-admin-secret-012345';

interface Blacklist {
  count: number;
  updatedAt: number | null;
}

describe('console blacklists and audit by time', () => {
  let dir: TempDir;
  let cluster: EmbeddedCluster;
  let browser: Browser;
  let page: Page;

  const admin = async <T>(method: string, path: string): Promise<T> => {
    const response = await fetch(cluster.url + path, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const body = (await response.json()) as T;
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(body)}`);
    return body;
  };
  const card = (name: string) => page.getByRole('article', { name });
  const summary = (name: string) => card(name).locator('[data-blacklist-summary]');
  const csv = (name: string, text: string) => ({ name, mimeType: 'text/csv', buffer: Buffer.from(text) });

  beforeAll(async () => {
    ensureConsoleBuilt();
    dir = await makeTempDir('herald-console-blacklists-');
    cluster = await startEmbeddedCluster({
      dataDir: dir.path,
      uinSpaceBits: 16,
      http: { port: 0 },
      executor: { ids: ['executor-1'] },
      auth: { bootstrapAdminToken: ADMIN_TOKEN },
    });
    browser = await launchBrowser();
    page = browser.page;
    await page.goto(cluster.url + '/');
    await page.getByLabel('API token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Tasks' }).waitFor();
    // The account chosen in the top bar is the one whose blacklist the page shows.
    await page.getByLabel('Account', { exact: true }).fill('acme');
    await page.getByLabel('Account', { exact: true }).press('Enter');
    await page.getByRole('link', { name: 'Admin', exact: true }).click();
    await page.getByRole('heading', { name: 'Administration' }).waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await cluster?.stop();
    await dir?.remove();
  });

  it('shows both blacklists empty, then replaces the global one from a CSV and says when', async () => {
    await summary('Global blacklist').getByText('Empty · never changed').waitFor();
    await summary('Blacklist of acme').getByText('Empty · never changed').waitFor();
    expect(await card('Global blacklist').getByRole('button', { name: 'Clear' }).isDisabled()).toBe(true);
    await page
      .getByLabel('Replace the global blacklist with a file')
      .setInputFiles(csv('global.csv', 'name,uin\nann,101\nbob,102\ncy,103\n'));
    await summary('Global blacklist')
      .getByText(/^3 recipients · replaced \d{4}-\d{2}-\d{2} \d{2}:\d{2}/)
      .waitFor();
    expect(await admin<Blacklist>('GET', '/api/v1/blacklists/global')).toMatchObject({ count: 3 });
    await screenshot(page, '50-admin-blacklists');
  });

  it("refuses an account's file with too many bad lines, naming them, and keeps the blacklist it had", async () => {
    const upload = page.getByLabel('Replace the blacklist of acme with a file');
    await upload.setInputFiles(csv('acme.csv', '7\n8\n'));
    await summary('Blacklist of acme')
      .getByText(/^2 recipients · replaced/)
      .waitFor();
    await upload.setInputFiles(csv('bad.csv', '9\nnine\n-10\n'));
    const refusal = card('Blacklist of acme').locator('.field-error');
    await refusal.getByText('line 2: not a number, line 3: negative').waitFor();
    await screenshot(page, '51-admin-blacklist-bad-lines');
    expect(await admin<Blacklist>('GET', '/api/v1/accounts/acme/blacklist')).toMatchObject({ count: 2 });
    // Skipping the bad lines sends the file again and replaces the blacklist with the good one.
    await refusal.getByRole('button', { name: 'Skip the bad lines and upload again' }).click();
    await summary('Blacklist of acme')
      .getByText(/^1 recipient · replaced/)
      .waitFor();
  });

  it('downloads a blacklist as the CSV it was given', async () => {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      card('Global blacklist').getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('blacklist-global.csv');
    expect(await readFile((await download.path())!, 'utf8')).toBe('uin\n101\n102\n103\n');
  });

  it('clears a blacklist only after a confirm, and says when it was cleared', async () => {
    const clear = card('Global blacklist').getByRole('button', { name: 'Clear' });
    await clear.click();
    const dialog = page.getByRole('dialog', { name: 'Clear the global blacklist?' });
    await dialog.waitFor();
    await screenshot(page, '52-admin-blacklist-clear-confirm', { fullPage: false });
    await dialog.getByRole('button', { name: 'Keep it' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await admin<Blacklist>('GET', '/api/v1/blacklists/global')).toMatchObject({ count: 3 });
    await clear.click();
    await page
      .getByRole('dialog', { name: 'Clear the global blacklist?' })
      .getByRole('button', { name: 'Yes, clear it' })
      .click();
    await summary('Global blacklist')
      .getByText(/^Empty · cleared \d{4}-\d{2}-\d{2} \d{2}:\d{2}/)
      .waitFor();
    const cleared = await admin<Blacklist>('GET', '/api/v1/blacklists/global');
    expect(cleared.count).toBe(0);
    expect(cleared.updatedAt).not.toBeNull();
  });

  it('filters the audit log by a time window typed on a 24-hour clock, and names a bad date', async () => {
    const text = (epochMs: number) =>
      page.evaluate<string>(`(() => {
        const d = new Date(${epochMs});
        const two = (n) => String(n).padStart(2, '0');
        return d.getFullYear() + '-' + two(d.getMonth() + 1) + '-' + two(d.getDate()) + ' ' + two(d.getHours()) + ':' + two(d.getMinutes());
      })()`);
    const rows = page.locator('[data-audit]');
    const filter = async (from: string, to: string) => {
      await page.getByLabel('From', { exact: true }).fill(from);
      await page.getByLabel('To (before)').fill(to);
      const answered = page.waitForResponse((r) => r.url().includes('/api/v1/audit?') && r.url().includes('from='));
      await page.getByRole('button', { name: 'Filter' }).click();
      return answered;
    };
    // The blacklist writes above are in the log; a window that ends before them holds none of them.
    const now = Date.now();
    const all = await admin<{ entries: { id: number }[] }>('GET', '/api/v1/audit?limit=1000');
    const response = await filter(await text(now - 3_600_000), await text(now + 120_000));
    const asked = new URL(response.url());
    expect(asked.searchParams.get('from')).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00\.000Z$/);
    await rows.nth(all.entries.length - 1).waitFor();
    expect(await rows.count()).toBe(all.entries.length);
    await screenshot(page, '53-admin-audit-by-time');

    await filter(await text(now - 7_200_000), await text(now - 3_600_000));
    await page.getByText('No entry matches.').waitFor();

    await page.getByLabel('From', { exact: true }).fill('2027-02-30 10:00');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.locator('.field-error[data-field="audit-from"]', { hasText: 'No such date: 2027-02-30.' }).waitFor();
    await page.getByLabel('From', { exact: true }).fill('2027-06-02 10:00');
    await page.getByLabel('To (before)').fill('2027-06-01 10:00');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.locator('.field-error[data-field="audit-to"]', { hasText: 'The end is before the start.' }).waitFor();
  });
});
