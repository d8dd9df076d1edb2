import { encodeRecipientList } from '@herald/core/recipient-list';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { FileDeliverySink } from '@herald/executor';
import { makeTempDir, type TempDir } from '@herald/testing';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { ensureConsoleBuilt, launchBrowser, screenshot, type Browser, apiAs } from './harness';

/**
 * Issue 22, defect 12: the console's session belongs to the browser, not the
 * tab. A task opened with Ctrl+click is signed in; no storage a page script
 * can read holds the token; a revoked token makes the next page say why the
 * session ended; signing out in one tab signs the others out at their next
 * request. One embedded Herald and one browser (one context: its tabs share
 * cookies, as a real browser's do).
 */
const ADMIN_TOKEN = 'hrd_sessiontest_console-session-test-admin-secret-01234';

describe('console sessions (defect 12)', () => {
  let dir: TempDir;
  let cluster: EmbeddedCluster;
  let browser: Browser;
  let page: Page;
  let taskId: number;

  const api = apiAs(() => cluster.url, ADMIN_TOKEN);

  const signIn = async (on: Page, token: string, { keep = false } = {}) => {
    await on.getByLabel('API token').fill(token);
    if (keep) await on.getByLabel('Keep me signed in on this browser').check();
    await on.getByRole('button', { name: 'Sign in' }).click();
  };

  const signOut = async (on: Page) => {
    await on.getByRole('button', { name: 'Sign out' }).click();
    await on.getByLabel('API token').waitFor();
  };

  /** Every key and value of both storages, and the cookies a script can see. */
  const scriptVisibleState = (on: Page) =>
    on.evaluate<{ local: string[]; session: string[]; cookie: string }>(`(() => {
      const all = (storage) =>
        Array.from({ length: storage.length }, (_, i) => storage.key(i)).map((key) => key + '=' + storage.getItem(key));
      return { local: all(localStorage), session: all(sessionStorage), cookie: document.cookie };
    })()`);

  const sessionCookie = async () =>
    (await browser.context.cookies(cluster.url + '/api/v1/me')).find((cookie) => cookie.name === 'herald_session');

  beforeAll(async () => {
    ensureConsoleBuilt();
    dir = await makeTempDir('herald-console-sessions-');
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
    const list = await api<{ id: string }>('POST', '/api/v1/lists?accountId=acme', encodeRecipientList([7, 8, 9]));
    taskId = (
      await api<{ id: number }>('POST', '/api/v1/tasks', {
        accountId: 'acme',
        listId: list.id,
        content: { body: 'session test' },
      })
    ).id;
    browser = await launchBrowser();
    page = browser.page;
    await page.goto(cluster.url + '/console/');
    await signIn(page, ADMIN_TOKEN);
    await page.getByRole('heading', { name: 'Tasks' }).waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await cluster?.stop();
    await dir?.remove();
  });

  it('opens a task in a new tab signed in (Ctrl+click), and keeps the token where no script can read it', async () => {
    const link = page.locator(`td.num a[href$="/tasks/${taskId}"]`);
    const [tab] = await Promise.all([browser.context.waitForEvent('page'), link.click({ modifiers: ['Control'] })]);
    try {
      await tab.getByRole('heading', { name: `Task ${taskId}` }).waitFor();
      // And the first tab stays where it was.
      await page.getByRole('heading', { name: 'Tasks' }).waitFor();
      await tab.locator('.who', { hasText: 'bootstrap admin' }).waitFor();
      expect(await tab.getByLabel('API token').count()).toBe(0);
      for (const on of [page, tab]) {
        const state = await scriptVisibleState(on);
        expect(JSON.stringify(state)).not.toContain(ADMIN_TOKEN);
        expect(state.cookie).not.toContain('herald_session');
      }
      // The browser has it, HttpOnly, for /api only, and (not kept) until it closes.
      expect(await sessionCookie()).toMatchObject({
        value: ADMIN_TOKEN,
        httpOnly: true,
        sameSite: 'Strict',
        path: '/api',
        expires: -1,
      });
    } finally {
      await tab.close();
    }
  });

  it('signs every tab out at its next request when one tab signs out', async () => {
    const other = await browser.context.newPage();
    try {
      await other.goto(cluster.url + '/console/tasks');
      await other.getByRole('heading', { name: 'Tasks' }).waitFor();
      await signOut(page);
      expect(await sessionCookie()).toBeUndefined();
      // The task list polls: its next request finds no session, and its sign-in page says so.
      const ended = other.locator('.session-ended');
      await ended.waitFor();
      expect(await ended.innerText()).toBe(
        'Your session ended: this browser signed out (in another tab, or the session expired). Sign in again.',
      );
    } finally {
      await other.close();
    }
  });

  it('keeps a session past the browser only when asked, for auth.sessionMaxAgeMs', async () => {
    await signIn(page, ADMIN_TOKEN, { keep: true });
    await page.getByRole('heading', { name: 'Tasks' }).waitFor();
    const kept = await sessionCookie();
    const sevenDays = 7 * 86_400;
    expect(kept?.expires).toBeGreaterThan(Date.now() / 1000 + sevenDays - 3600);
    expect(kept?.expires).toBeLessThanOrEqual(Date.now() / 1000 + sevenDays);
    expect(JSON.stringify(await scriptVisibleState(page))).not.toContain(ADMIN_TOKEN);
  });

  it('says on the next page why the session ended when its token is revoked, and only once', async () => {
    const created = await api<{ token: string; id: string }>('POST', '/api/v1/tokens', {
      name: 'Rita Revoked',
      role: 'operator',
      accounts: ['acme'],
    });
    // The first tab is signed out while the token is revoked: only the page opened next asks the server.
    await signOut(page);
    const tab = await browser.context.newPage();
    try {
      await tab.goto(cluster.url + `/console/tasks/${taskId}`);
      await signIn(tab, created.token);
      await tab.locator('.who', { hasText: 'Rita Revoked' }).waitFor();
      await tab.goto('about:blank');
      await api('DELETE', `/api/v1/tokens/${created.id}`);
      await tab.goto(cluster.url + `/console/tasks/${taskId}`);
      const ended = tab.locator('.session-ended');
      await ended.waitFor();
      expect(await ended.innerText()).toMatch(
        /^Your session ended: Herald no longer accepts this token \(.+revoked.+\)\. Sign in again\.$/,
      );
      await screenshot(tab, '01-sign-in-session-ended');
      // The answer cleared the cookie: the page after it is a plain sign-in.
      expect(await sessionCookie()).toBeUndefined();
      await tab.reload();
      await tab.getByLabel('API token').waitFor();
      expect(await ended.count()).toBe(0);
    } finally {
      await tab.close();
    }
    await signIn(page, ADMIN_TOKEN);
    await page.locator('.who', { hasText: 'bootstrap admin' }).waitFor();
  });
});
