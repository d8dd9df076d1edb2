import { join } from 'node:path';
import { compileConfig } from '@herald/core/config';
import { noopLogger, systemClock } from '@herald/core/ports';
import { parseToken } from '@herald/core/access';
import { ListRepository } from '@herald/audience';
import { createApiServer, hashTokenSecret } from '@herald/interface';
import { LevelAccessStore, LevelTaskStore } from '@herald/store-level';
import { makeTempDir, newTask, waitFor, type TempDir } from '@herald/testing';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { ensureConsoleBuilt, launchBrowser, screenshot, type Browser } from './harness';

/**
 * The console on 10^5 tasks: the interface tier alone (no scheduler: the
 * tasks stay as created) over a LevelDB task store holding 100,000 tasks of
 * three accounts spread over 30 days. Every list page is one keyset query,
 * so the newest page, paging back, a filter that matches nothing (the
 * worst case: the store scans every task) and a task page all answer; the
 * times are printed, not asserted (a loaded CI machine varies).
 */
const TASKS = 100_000;
const ADMIN_TOKEN = 'hrd_consolescale_console-scale-test-admin-secret-01234';
const DAY = 86_400_000;

describe('operator console on 10^5 tasks', () => {
  let dir: TempDir;
  let store: LevelTaskStore;
  let access: LevelAccessStore;
  let app: FastifyInstance;
  let url: string;
  let browser: Browser;
  let page: Page;
  const now = Date.now();
  const createdAt = (i: number) => now - 30 * DAY + Math.floor((i * 30 * DAY) / TASKS);
  const timings: string[] = [];

  /** Runs `step` and records how long it took, for the summary printed at the end. */
  const timed = async <T>(what: string, step: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    const result = await step();
    timings.push(`${what}: ${Math.round(performance.now() - started)} ms`);
    return result;
  };

  beforeAll(async () => {
    ensureConsoleBuilt();
    dir = await makeTempDir('herald-console-scale-');
    store = await LevelTaskStore.open(join(dir.path, 'tasks'));
    access = await LevelAccessStore.open(join(dir.path, 'access'));
    const admin = parseToken(ADMIN_TOKEN)!;
    await access.createToken({
      id: admin.tokenId,
      name: 'scale admin',
      role: 'admin',
      accounts: [],
      hash: hashTokenSecret(admin.secret),
      createdAt: now,
    });
    await timed(`seeding ${TASKS.toLocaleString('en-US')} tasks`, async () => {
      for (let i = 0; i < TASKS; i++)
        await store.createTask(newTask({ accountId: `acme_${i % 3}`, listCount: 1000 + (i % 5000) }), createdAt(i));
    });
    app = createApiServer({
      config: compileConfig({ dataDir: dir.path, uinSpaceBits: 20, auth: { rateLimit: { perSecond: 0 } } }),
      store,
      access,
      lists: new ListRepository(join(dir.path, 'lists')),
      toScheduler: { async send() {}, close() {} },
      clock: systemClock,
      logger: noopLogger,
      blacklistIds: { global: 'b_global', forAccount: (accountId) => `b_${accountId}` },
    });
    url = await app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchBrowser();
    page = browser.page;
  }, 600_000);

  afterAll(async () => {
    if (timings.length > 0)
      process.stdout.write(`console on ${TASKS.toLocaleString('en-US')} tasks:\n  ${timings.join('\n  ')}\n`);
    await browser?.close();
    await app?.close();
    await store?.close();
    await access?.close();
    await dir?.remove();
  });

  const rowIds = async () => (await page.locator('table.tasks tbody tr td.num a').allInnerTexts()).map(Number);

  it('lists the newest 50, pages back, filters, and opens the oldest task', async () => {
    await page.goto(`${url}/console/`);
    await page.getByLabel('API token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await timed('newest page (50 rows)', () => page.locator('table.tasks tbody tr').nth(49).waitFor());
    expect((await rowIds())[0]).toBe(TASKS);
    await screenshot(page, '12-tasks-100k');

    for (let pageNo = 1; pageNo <= 3; pageNo++) {
      await timed(`older page ${pageNo}`, async () => {
        await page.getByRole('button', { name: 'Older →' }).click();
        await waitFor(async () => (await rowIds())[0] === TASKS - 50 * pageNo, {
          timeoutMs: 30_000,
          message: `page ${pageNo} did not come`,
        });
      });
    }

    // Nothing is PAUSED: the store reads every task to say so.
    await timed('a state filter that matches nothing (full scan)', async () => {
      await page.getByLabel('State filter').selectOption('PAUSED');
      await page.getByText('No task matches these filters.').waitFor({ timeout: 60_000 });
    });

    await page.getByLabel('State filter').selectOption('');
    const day = new Date(createdAt(TASKS / 2));
    const iso = `${day.getFullYear()}-${String(day.getMonth() + 1).padStart(2, '0')}-${String(day.getDate()).padStart(2, '0')}`;
    await timed('one account, one day', async () => {
      const picker = page.getByRole('combobox', { name: 'Account', exact: true });
      await picker.fill('acme_1');
      await picker.press('Enter');
      await page.getByLabel('Created from').fill(iso);
      await page.getByLabel('Created to').fill(iso);
      await page.waitForURL(/to=/);
      // The rows of the filtered page: the newest task of acme_1 created that day.
      await waitFor(
        async () => {
          const ids = await rowIds();
          if (ids.length !== 50) return false;
          const first = await store.getTask(ids[0]!);
          return first?.accountId === 'acme_1' && new Date(first.createdAt).getDate() === day.getDate();
        },
        { timeoutMs: 30_000, message: 'the account and day filter did not show that day of acme_1' },
      );
    });

    await timed('the oldest task page', async () => {
      await page.goto(`${url}/console/tasks/1`);
      await page.locator('h1', { hasText: 'Task 1' }).waitFor();
    });
  }, 180_000); // many page loads over 10^5 tasks: 60 s was not enough on a loaded two-core machine
});
