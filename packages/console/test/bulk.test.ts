import { encodeRecipientList } from '@herald/core/recipient-list';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { FileDeliverySink } from '@herald/executor';
import { makeTempDir, waitFor, type TempDir } from '@herald/testing';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { ensureConsoleBuilt, launchBrowser, screenshot, type Browser, apiAs } from './harness';

/**
 * Issue 22, "Lists of tasks": bulk pause, resume and cancel of the tasks
 * selected on the list. Tasks in different states are selected (by mouse
 * and by keyboard); each command goes to every one of them, the states are
 * read back through the API, and the summary names each task that could
 * not follow. Cancel asks first, naming how many; Escape takes it back.
 */
const ADMIN_TOKEN = 'hrd_bulktest_console-bulk-test-admin-secret-01234567';

describe('bulk commands on the task list', () => {
  let dir: TempDir;
  let cluster: EmbeddedCluster;
  let browser: Browser;
  let page: Page;
  const scheduled: number[] = [];
  let completedId: number;
  let pausedId: number;

  const api = apiAs(() => cluster.url, ADMIN_TOKEN);
  const stateOf = async (id: number) => (await api<{ state: string }>('GET', `/api/v1/tasks/${id}`)).state;
  const rowBox = (id: number) => page.getByRole('checkbox', { name: `Select task ${id}`, exact: true });
  const summary = () => page.locator('.bulk-summary');

  beforeAll(async () => {
    ensureConsoleBuilt();
    dir = await makeTempDir('herald-console-bulk-');
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
      encodeRecipientList(Uint32Array.from({ length: 30 }, (_, i) => 300 + i)),
    );
    const create = async (title: string, inMs: number) =>
      (
        await api<{ id: number }>('POST', '/api/v1/tasks', {
          accountId: 'acme',
          listId: list.id,
          content: { title, body: 'The pool opens at seven.' },
          sendAt: new Date(Date.now() + inMs).toISOString(),
        })
      ).id;
    completedId = await create('Sent already', 0);
    await waitFor(async () => (await stateOf(completedId)) === 'COMPLETED', {
      timeoutMs: 30_000,
      message: 'the first task did not complete',
    });
    pausedId = await create('Paused already', 86_400_000);
    await api('POST', `/api/v1/tasks/${pausedId}/pause`);
    scheduled.push(await create('Tomorrow one', 86_400_000), await create('Tomorrow two', 86_400_000));
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

  it('selects the page with one box, and shows no bar with nothing selected', async () => {
    await page.goto(`${cluster.url}/console/tasks?account=`);
    await page.locator('table.tasks tbody tr').nth(3).waitFor();
    expect(await page.locator('.bulk-bar').count()).toBe(0);
    const all = page.getByRole('checkbox', { name: 'Select all tasks on this page' });
    await all.check();
    await page.locator('.bulk-count', { hasText: '4 selected' }).waitFor();
    await rowBox(completedId).uncheck();
    await page.locator('.bulk-count', { hasText: '3 selected' }).waitFor();
    // Some ticked: the select-all box is half-ticked, and a click ticks them all again.
    expect(await all.evaluate((box) => (box as unknown as { indeterminate: boolean }).indeterminate)).toBe(true);
    await all.click();
    await page.locator('.bulk-count', { hasText: '4 selected' }).waitFor();
    await all.uncheck();
    await page.locator('.bulk-bar').waitFor({ state: 'detached' });
    // A click on the box selects; it does not open the task as a click on the row does.
    expect(page.url()).toMatch(/\/console\/tasks\?account=$/);
  });

  it('pauses what can pause and names each task that could not', async () => {
    await page.goto(`${cluster.url}/console/tasks?account=`);
    await page.locator('table.tasks tbody tr').nth(3).waitFor();
    await rowBox(scheduled[0]).check();
    await rowBox(completedId).check();
    // By keyboard: Space on a focused box ticks it.
    await rowBox(scheduled[1]).focus();
    await page.keyboard.press('Space');
    await rowBox(pausedId).check();
    await page.locator('.bulk-count', { hasText: '4 selected' }).waitFor();
    const bar = page.getByRole('region', { name: 'Selected tasks' });
    expect(await bar.getByRole('button', { name: 'Pause' }).isEnabled()).toBe(true);
    expect(await bar.getByRole('button', { name: 'Resume' }).isEnabled()).toBe(true);

    await bar.getByRole('button', { name: 'Pause' }).click();
    await summary().waitFor();
    // Newest first, as the list shows them.
    expect(await summary().innerText()).toBe(
      `2 paused; 2 could not: task ${pausedId} is PAUSED, task ${completedId} is COMPLETED`,
    );
    expect(await Promise.all([...scheduled, pausedId, completedId].map(stateOf))).toEqual([
      'PAUSED',
      'PAUSED',
      'PAUSED',
      'COMPLETED',
    ]);
    // The list redraws from the server: every selected live task now shows PAUSED, and Pause has nothing left to do.
    await page.waitForFunction(`document.querySelectorAll('table.tasks .badge.state-paused').length === 3`);
    expect(await bar.getByRole('button', { name: 'Pause' }).isEnabled()).toBe(false);
    await screenshot(page, '43-bulk-pause-summary');
  });

  it('cancels after a question naming how many; Escape takes the question back', async () => {
    const bar = page.getByRole('region', { name: 'Selected tasks' });
    const cancel = bar.getByRole('button', { name: 'Cancel…' });
    await cancel.click();
    const dialog = page.getByRole('dialog', { name: 'Cancel 4 tasks?' });
    await dialog.waitFor();
    expect(await dialog.innerText()).toContain('1 of them is already over: the summary will name it.');
    // Focus starts on the safe answer; Escape closes with nothing sent and focus back on Cancel….
    expect(await page.evaluate<string>('document.activeElement?.textContent ?? ""')).toBe('Keep them');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await page.evaluate<string>('document.activeElement?.textContent ?? ""')).toBe('Cancel…');
    expect(await stateOf(scheduled[0])).toBe('PAUSED');

    await page.keyboard.press('Enter');
    await dialog.waitFor();
    await screenshot(page, '44-bulk-cancel-confirm', { fullPage: false });
    await dialog.getByRole('button', { name: 'Yes, cancel 4' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.locator('.bulk-summary', { hasText: 'cancelled' }).waitFor();
    expect(await summary().innerText()).toBe(`3 cancelled; 1 could not: task ${completedId} is COMPLETED`);
    expect(await Promise.all([...scheduled, pausedId, completedId].map(stateOf))).toEqual([
      'CANCELLED',
      'CANCELLED',
      'CANCELLED',
      'COMPLETED',
    ]);
  });
});
