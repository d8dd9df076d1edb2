import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { makeTempDir, waitFor, type TempDir } from '@herald/testing';
import type { Page } from 'playwright-core';
import { ensureConsoleBuilt, launchBrowser, screenshot, seriousAxeViolations, type Browser } from './harness';

/**
 * The administration page (issue 22, "Administration" and "Speed and
 * limits") driven in headless Chromium against a real embedded Herald:
 * create a token (its secret shown once, and it really signs in), revoke it
 * (the API refuses it at once), read the audit log filtered by token and by
 * account, page by page, and edit an account's limits and click-through rate.
 * An operator sees none of it. Beside them, other controls of issue 22: a
 * broadcast's speed, the question before leaving a half-written broadcast,
 * deleting a campaign. One browser and one Herald for the file.
 */
const ADMIN_TOKEN = 'hrd_admintest_console-admin-test-admin-secret-0123456789';

interface Me {
  tokenId: string;
  name: string;
  role: string;
  accounts: string[];
}

describe('console administration', () => {
  let dir: TempDir;
  let cluster: EmbeddedCluster;
  let browser: Browser;
  let page: Page;

  const call = async (token: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(cluster.url + path, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const admin = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const answer = await call(ADMIN_TOKEN, method, path, body);
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body as T;
  };

  const signIn = async (token: string) => {
    await page.goto(cluster.url + '/');
    await page.getByLabel('API token').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Tasks' }).waitFor();
  };
  const openAdmin = async () => {
    await page.getByRole('link', { name: 'Admin', exact: true }).click();
    await page.getByRole('heading', { name: 'Administration' }).waitFor();
  };

  /** Creates an operator token in the form; answers its secret as the page shows it. */
  const createToken = async (name: string, accounts: string) => {
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByLabel('Role').selectOption('operator');
    await page.getByLabel('Accounts', { exact: true }).fill(accounts);
    await page.getByRole('button', { name: 'Create token' }).click();
    const secret = page.locator('[data-secret]');
    await secret.waitFor();
    return secret.innerText();
  };

  beforeAll(async () => {
    ensureConsoleBuilt();
    dir = await makeTempDir('herald-console-admin-');
    cluster = await startEmbeddedCluster({
      dataDir: dir.path,
      uinSpaceBits: 16,
      http: { port: 0 },
      executor: { ids: ['executor-1'] },
      auth: { bootstrapAdminToken: ADMIN_TOKEN },
    });
    browser = await launchBrowser();
    page = browser.page;
    await signIn(ADMIN_TOKEN);
    await openAdmin();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await cluster?.stop();
    await dir?.remove();
  });

  it('creates an operator token whose secret is shown once and signs in', async () => {
    const secret = await createToken('acme night shift', 'acme, acme_eu');
    const me = await call(secret, 'GET', '/api/v1/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ name: 'acme night shift', role: 'operator', accounts: ['acme', 'acme_eu'] });
    const row = page.locator(`[data-token="${(me.body as unknown as Me).tokenId}"]`);
    await row.waitFor();
    expect(await row.innerText()).toContain('acme, acme_eu');
    await screenshot(page, '40-admin-token-created');
    // Shown once: after a reload the page has no secret left to show.
    await page.reload();
    await page.getByRole('heading', { name: 'API tokens' }).waitFor();
    await row.waitFor();
    expect(await page.locator('[data-secret]').count()).toBe(0);
    expect(await page.content()).not.toContain(secret);
  });

  it('refuses a token with no account, naming the field', async () => {
    await page.getByLabel('Name', { exact: true }).fill('nobody');
    await page.getByLabel('Role').selectOption('operator');
    await page.getByLabel('Accounts', { exact: true }).fill(' , ');
    const before = (await admin<{ tokens: unknown[] }>('GET', '/api/v1/tokens')).tokens.length;
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.locator('.banner.error').waitFor();
    expect((await admin<{ tokens: unknown[] }>('GET', '/api/v1/tokens')).tokens.length).toBe(before);
  });

  it('revokes a token: the API refuses it at once and the list says when', async () => {
    const secret = await createToken('to revoke', 'globex');
    const { tokenId } = (await call(secret, 'GET', '/api/v1/me')).body as unknown as Me;
    const row = page.locator(`[data-token="${tokenId}"]`);
    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByRole('button', { name: 'Revoke' }).waitFor({ state: 'detached' });
    expect((await call(secret, 'GET', '/api/v1/me')).status).toBe(401);
    expect(await row.innerText()).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}[^]*\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/);
  });

  it('filters the audit log by token and by account, and pages to older entries', async () => {
    const secret = await createToken('audited', 'initech');
    const { tokenId } = (await call(secret, 'GET', '/api/v1/me')).body as unknown as Me;
    // Writes are audited, refused ones too: a blacklist that is not a list is refused after the account is named.
    const write = () => call(secret, 'PUT', '/api/v1/accounts/initech/blacklist', {});
    for (let i = 0; i < 3; i++) expect((await write()).status).toBe(400);
    const server = await admin<{ entries: { id: number; tokenId: string }[] }>(
      'GET',
      `/api/v1/audit?tokenId=${tokenId}&limit=1000`,
    );
    expect(server.entries.length).toBeGreaterThanOrEqual(3);
    await page.getByLabel('Filter by token id').fill(tokenId);
    await page.getByRole('button', { name: 'Filter' }).click();
    await waitFor(async () => (await page.locator('[data-audit]').count()) === server.entries.length, {
      timeoutMs: 15_000,
    });
    const ids = await page
      .locator('[data-audit]')
      .evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-audit'))));
    expect(ids).toEqual(server.entries.map((e) => e.id));
    await screenshot(page, '41-admin-audit');

    // By account: only initech's entries; more than a page of them (50) after a burst.
    for (let i = 0; i < 60; i++) await write();
    await page.getByLabel('Filter by token id').fill('');
    await page.getByLabel('Filter by account').fill('initech');
    await page.getByRole('button', { name: 'Filter' }).click();
    await waitFor(async () => (await page.locator('[data-audit]').count()) === 50, { timeoutMs: 15_000 });
    const firstPage = await page.locator('[data-audit]').evaluateAll((rows) => rows.map((r) => r.textContent ?? ''));
    expect(firstPage.every((text) => text.includes('initech'))).toBe(true);
    const newest = await page.locator('[data-audit]').first().getAttribute('data-audit');
    await page.getByRole('button', { name: 'Older' }).click();
    await waitFor(
      async () => Number(await page.locator('[data-audit]').first().getAttribute('data-audit')) < Number(newest),
      {
        timeoutMs: 15_000,
      },
    );
  });

  it("edits an account's limits and click-through rate", async () => {
    // The limits panel's: the local-time panel below has an account id of its own.
    await page.locator('#limits-account').fill('acme');
    await page.getByRole('button', { name: 'Show limits' }).click();
    await page.getByLabel('Daily broadcasts').waitFor();
    // A bad number is caught in the browser, in the form's units, and nothing is sent.
    await page.getByLabel('Minimum interval (minutes)').fill('1441');
    await page.getByRole('button', { name: 'Save limits' }).click();
    expect(await page.locator('[data-field="limit-minIntervalMinutes"]').innerText()).toContain('0 to 1,440');
    expect((await admin<{ updatedAt: number | null }>('GET', '/api/v1/accounts/acme/limits')).updatedAt).toBeNull();

    await page.getByLabel('Daily broadcasts').fill('3');
    await page.getByLabel('Minimum interval (minutes)').fill('90');
    await page.getByLabel('Maximum speed (recipients/s)').fill('2000');
    await page.getByLabel('Click-through (%)').fill('5');
    await page.getByRole('button', { name: 'Save limits' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const limits = await admin<{
      override: Record<string, number>;
      clickThroughRate: number;
      limits: { maxSpeed: number };
    }>('GET', '/api/v1/accounts/acme/limits');
    expect(limits.override).toEqual({ dailyBroadcasts: 3, minIntervalMs: 90 * 60_000, maxSpeed: 2000 });
    expect(limits.clickThroughRate).toBeCloseTo(0.05);
    expect(await page.locator('[data-limits-now]').innerText()).toContain(
      `${limits.limits.maxSpeed.toLocaleString('en-US')}/s`,
    );
    await screenshot(page, '42-admin-limits');
  });

  it('sends a broadcast at a typed speed, refused in the browser when it is not one, and shows it on the task', async () => {
    // The limits test above let acme set a speed up to 2,000 recipients/s.
    const account = page.getByRole('combobox', { name: 'Account', exact: true });
    await account.fill('acme');
    await account.press('Enter');
    await page.getByRole('link', { name: 'New broadcast' }).first().click();
    await page.getByRole('heading', { name: 'New broadcast' }).waitFor();
    const listFile = join(dir.path, 'few.csv');
    await writeFile(listFile, 'uin\n11\n12\n13\n');
    await page.locator('#listFile').setInputFiles(listFile);
    await page.locator('.upload-result').waitFor();
    await page.getByLabel('Message', { exact: true }).fill('Paced news.');
    const posts: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && new URL(r.url()).pathname === '/api/v1/tasks') posts.push(r.postData() ?? '');
    });
    await page.getByLabel('Speed').fill('fast');
    await page.getByRole('button', { name: 'Send broadcast' }).click();
    expect(await page.locator('[data-field="speed"]').innerText()).toContain('recipients per second');
    expect(posts).toEqual([]);
    await page.getByLabel('Speed').fill('1000');
    await page.getByRole('button', { name: 'Send broadcast' }).click();
    await page.waitForURL(/\/console\/tasks\/\d+$/);
    const id = Number(new URL(page.url()).pathname.split('/').pop());
    expect((await admin<{ speed: number }>('GET', `/api/v1/tasks/${id}`)).speed).toBe(1000);
    await page.locator('[data-fact="speed"]').filter({ hasText: '1,000 recipients/s' }).waitFor();
  });

  it('asks before discarding a typed broadcast, and keeps it when told to stay', async () => {
    await page.getByRole('link', { name: 'New broadcast' }).first().click();
    await page.getByRole('heading', { name: 'New broadcast' }).waitFor();
    // An untouched form leaves without a question.
    const questions: string[] = [];
    const answer = (accept: boolean) =>
      page.once('dialog', (dialog) => {
        questions.push(dialog.message());
        void (accept ? dialog.accept() : dialog.dismiss());
      });
    await page.getByRole('link', { name: 'Tasks', exact: true }).click();
    await page.getByRole('heading', { name: 'Tasks' }).waitFor();
    expect(questions).toEqual([]);

    await page.getByRole('link', { name: 'New broadcast' }).first().click();
    await page.getByLabel('Message', { exact: true }).fill('Half written');
    answer(false);
    await page.getByRole('link', { name: 'Tasks', exact: true }).click();
    await waitFor(() => questions.length === 1, { timeoutMs: 10_000 });
    expect(questions[0]).toContain('not sent and will be lost');
    expect(await page.getByLabel('Message', { exact: true }).inputValue()).toBe('Half written');
    expect(new URL(page.url()).pathname).toBe('/console/new');

    answer(true);
    await page.getByRole('link', { name: 'Tasks', exact: true }).click();
    await page.getByRole('heading', { name: 'Tasks' }).waitFor();
    expect(questions.length).toBe(2);
  });

  it('deletes a campaign after asking, and keeps it when told not to', async () => {
    const upload = await fetch(cluster.url + '/api/v1/lists?accountId=acme', {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/plain' },
      body: '21\n22\n',
    });
    const { id: listId } = (await upload.json()) as { id: string };
    const { id } = await admin<{ id: number }>('POST', '/api/v1/campaigns', {
      accountId: 'acme',
      name: 'Doomed digest',
      cron: '30 2 * * *',
      timeZone: 'Europe/Berlin',
      template: { listId, content: { body: 'Digest' } },
    });
    await page.goto(`${cluster.url}/console/campaigns/${id}`);
    await page.getByRole('heading', { name: /Doomed digest/ }).waitFor();
    // The console's own dialog, not the browser's: Escape keeps the campaign and gives focus back to Delete.
    const remove = page.getByRole('button', { name: 'Delete…' });
    const dialog = page.getByRole('dialog', { name: 'Delete “Doomed digest”?' });
    await remove.click();
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    // (Source text: the tests are type-checked without the DOM's types.)
    expect(await page.evaluate<string | null>('document.activeElement && document.activeElement.textContent')).toBe(
      'Delete…',
    );
    await remove.click();
    await dialog.getByRole('button', { name: 'Keep the campaign' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await call(ADMIN_TOKEN, 'GET', `/api/v1/campaigns/${id}`)).status).toBe(200);
    await remove.click();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, '60-campaign-delete-confirm');
    await dialog.getByRole('button', { name: 'Yes, delete' }).click();
    await page.waitForURL(/\/console\/campaigns$/);
    expect((await call(ADMIN_TOKEN, 'GET', `/api/v1/campaigns/${id}`)).status).toBe(404);
  });

  it('shows an operator no administration', async () => {
    const { token: secret } = await admin<{ token: string }>('POST', '/api/v1/tokens', {
      name: 'plain operator',
      role: 'operator',
      accounts: ['acme'],
    });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(secret);
    expect(await page.getByRole('link', { name: 'Admin', exact: true }).count()).toBe(0);
    await page.goto(cluster.url + '/console/admin');
    await page.getByText('Only an admin token administers Herald.').waitFor();
    expect(await page.getByRole('heading', { name: 'API tokens' }).count()).toBe(0);
  });
});
