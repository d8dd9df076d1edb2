import { encodeRecipientList } from '@herald/core/recipient-list';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { FileDeliverySink } from '@herald/executor';
import { makeTempDir, waitFor, type TempDir } from '@herald/testing';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import {
  ensureConsoleBuilt,
  launchBrowser,
  screenshot,
  seriousAxeViolations,
  type AxeViolation,
  type Browser,
  apiAs,
} from './harness';

/**
 * The console with a keyboard and a screen reader's eyes (issue 22,
 * "Accessibility"): axe-core on every page finds nothing serious or
 * critical, a skip link leads past the top bar, every control shows a
 * focus ring when reached by keyboard, and Escape closes a confirmation
 * with focus back on the control that opened it. Dark mode follows the
 * system setting and passes axe's contrast checks as well.
 */
const ADMIN_TOKEN = 'hrd_a11ytest_console-a11y-test-admin-secret-0123456';
const uinSpaceBits = 16;

describe('console accessibility', () => {
  let dir: TempDir;
  let cluster: EmbeddedCluster;
  let browser: Browser;
  let page: Page;
  let sentId: number;
  let scheduledId: number;
  let campaignId: number;

  const api = apiAs(() => cluster.url, ADMIN_TOKEN);

  /** Opens a console path as a fresh page load and waits for its heading. */
  const open = async (path: string, heading: string | RegExp) => {
    await page.goto(`${cluster.url}/console${path}`);
    await page.getByRole('heading', { name: heading, level: 1 }).first().waitFor();
  };

  /** What the focused element is, for messages and comparisons. */
  const focused = () =>
    page.evaluate<string>(`(() => {
      const e = document.activeElement;
      return e === null ? 'nothing' : e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + ' ' + (e.textContent ?? '').trim().slice(0, 40);
    })()`);

  const signIn = async () => {
    await page.getByLabel('API token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Tasks' }).waitFor();
    const account = page.getByRole('combobox', { name: 'Account', exact: true });
    await account.fill('acme');
    await account.press('Enter');
  };

  beforeAll(async () => {
    ensureConsoleBuilt();
    dir = await makeTempDir('herald-console-a11y-');
    cluster = await startEmbeddedCluster(
      {
        dataDir: dir.path,
        uinSpaceBits,
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
      encodeRecipientList(Uint32Array.from({ length: 50 }, (_, i) => 100 + i)),
    );
    const content = { title: 'Opening hours', body: 'The pool opens at seven.' };
    sentId = (
      await api<{ id: number }>('POST', '/api/v1/tasks', {
        accountId: 'acme',
        listId: list.id,
        content,
        sendAt: new Date().toISOString(),
      })
    ).id;
    scheduledId = (
      await api<{ id: number }>('POST', '/api/v1/tasks', {
        accountId: 'acme',
        listId: list.id,
        content,
        sendAt: new Date(Date.now() + 86_400_000).toISOString(),
      })
    ).id;
    campaignId = (
      await api<{ id: number }>('POST', '/api/v1/campaigns', {
        accountId: 'acme',
        name: 'Morning news',
        cron: '0 9 * * mon-fri',
        timeZone: 'Europe/Berlin',
        template: { listId: list.id, content },
      })
    ).id;
    await waitFor(async () => (await cluster.store.getTask(sentId))?.state === 'COMPLETED', {
      timeoutMs: 30_000,
      message: 'the first task did not complete',
    });
    browser = await launchBrowser();
    page = browser.page;
    // Leaving a half-written form asks first (drafts, tested in guard.test.ts): here the answer is always yes.
    page.on('dialog', (dialog) => void dialog.accept());
    await page.goto(cluster.url + '/console/');
    await signIn();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await cluster?.stop();
    await dir?.remove();
  });

  it('axe-core finds nothing serious or critical on any page', async () => {
    const found: Record<string, AxeViolation[]> = {};
    const check = async (name: string) => {
      const violations = await seriousAxeViolations(page);
      if (violations.length > 0) found[name] = violations;
    };
    await open('/tasks', 'Tasks');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API token').waitFor();
    await check('sign-in');
    await signIn();
    await page.locator('table.tasks tbody tr').first().waitFor();
    await check('tasks');
    await page.getByRole('checkbox', { name: 'Select all tasks on this page' }).check();
    await page.locator('.bulk-count', { hasText: '2 selected' }).waitFor();
    await check('tasks, selected');
    await page.getByRole('button', { name: 'Cancel…' }).click();
    await page.getByRole('dialog', { name: 'Cancel 2 tasks?' }).waitFor();
    await check('tasks, bulk cancel asked');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });

    await open(`/tasks/${sentId}`, /Task/);
    await page.locator('h1 .badge', { hasText: 'COMPLETED' }).waitFor();
    await check('task, completed');
    await open(`/tasks/${scheduledId}`, /Task/);
    await page.locator('h1 .badge', { hasText: 'SCHEDULED' }).waitFor();
    await check('task, scheduled');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await check('task, cancel asked');
    await page.keyboard.press('Escape');

    await open('/new', 'New broadcast');
    await check('new broadcast');
    await page.getByRole('button', { name: 'Send broadcast' }).click();
    await page.locator('.field-error').first().waitFor();
    await check('new broadcast, refused');
    await page.getByRole('radio', { name: 'A targeting query' }).check();
    await check('new broadcast, targeting');
    await open('/campaigns', 'Campaigns');
    await page.locator('table tbody tr').first().waitFor();
    await check('campaigns');
    await open('/campaigns/new', 'New campaign');
    await check('new campaign');
    await open(`/campaigns/${campaignId}`, 'Morning news');
    await check('campaign');
    await open('/cluster', 'Cluster');
    await page.locator('table').first().waitFor();
    await check('cluster');
    await open('/admin', 'Administration');
    await page.locator('table').first().waitFor();
    await check('admin');
    expect(found).toEqual({});
  }, 120_000);

  it('follows the system dark setting, and axe-core passes its colours too, on a desk and on a phone', async () => {
    const background = () => page.evaluate<string>(`getComputedStyle(document.documentElement).backgroundColor`);
    const found: Record<string, AxeViolation[]> = {};
    try {
      await open('/tasks', 'Tasks');
      expect(await background()).toBe('rgb(245, 246, 248)');
      await page.emulateMedia({ colorScheme: 'dark' });
      expect(await background()).toBe('rgb(15, 19, 27)');
      for (const [width, prefix] of [
        [1360, '34-dark'],
        [390, '35-dark-phone'],
      ] as const) {
        await page.setViewportSize({ width, height: width > 400 ? 860 : 844 });
        await open('/tasks', 'Tasks');
        await page.locator('table.tasks tbody tr').first().waitFor();
        await screenshot(page, `${prefix}-tasks`);
        const tasks = await seriousAxeViolations(page);
        if (tasks.length > 0) found[`${prefix} tasks`] = tasks;

        await open(`/tasks/${sentId}`, /Task/);
        await page.locator('h1 .badge', { hasText: 'COMPLETED' }).waitFor();
        await screenshot(page, `${prefix}-task`);
        const task = await seriousAxeViolations(page);
        if (task.length > 0) found[`${prefix} task`] = task;

        await open('/new', 'New broadcast');
        await page.getByLabel('Title').fill('Opening hours');
        await page.getByLabel('Message', { exact: true }).fill('The pool opens at seven.');
        await page.getByRole('button', { name: 'Send broadcast' }).click();
        await page.locator('.field-error').first().waitFor();
        await screenshot(page, `${prefix}-new-broadcast`);
        const form = await seriousAxeViolations(page);
        if (form.length > 0) found[`${prefix} new broadcast`] = form;
      }
    } finally {
      await page.emulateMedia({ colorScheme: 'light' });
      await page.setViewportSize({ width: 1360, height: 860 });
    }
    expect(found).toEqual({});
  }, 120_000);

  it('has a skip link first in the tab order that moves focus to the content', async () => {
    await open('/tasks', 'Tasks');
    await page.keyboard.press('Tab');
    const skip = page.getByRole('link', { name: 'Skip to the content' });
    expect(await focused()).toBe('a Skip to the content');
    // Visible while focused (it hides off screen otherwise).
    const box = (await skip.boundingBox())!;
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(box.width).toBeGreaterThan(20);
    await screenshot(page, '32-skip-link', { fullPage: false });
    await page.keyboard.press('Enter');
    expect(await focused()).toMatch(/^main#content /);
    // The next Tab goes into the page, not back to the top bar.
    await page.keyboard.press('Tab');
    expect(await page.evaluate<boolean>(`document.querySelector('main').contains(document.activeElement)`)).toBe(true);
  });

  it('draws a focus ring on every control reached by keyboard', async () => {
    const unringed: string[] = [];
    for (const [path, heading] of [
      ['/tasks', 'Tasks'],
      [`/tasks/${scheduledId}`, /Task/],
      ['/new', 'New broadcast'],
    ] as const) {
      await open(path, heading);
      const seen = new Set<string>();
      for (let i = 0; i < 80; i++) {
        await page.keyboard.press('Tab');
        // Source text: the tests are type-checked without the DOM's types.
        const control = await page.evaluate<{ name: string; ringed: boolean } | null>(`(() => {
          const e = document.activeElement;
          if (e === null || e === document.body) return null;
          const style = getComputedStyle(e);
          // The ring's colour as the stylesheet names it (--focus), whatever the colour scheme.
          const probe = document.body.appendChild(document.createElement('span'));
          probe.style.color = 'var(--focus)';
          const ring = getComputedStyle(probe).color;
          probe.remove();
          const ringed = style.outlineStyle === 'solid' && parseFloat(style.outlineWidth) >= 2 && style.outlineColor === ring;
          const name = e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + '[' + (e.getAttribute('aria-label') ?? e.textContent ?? '').trim().slice(0, 30) + ']';
          return { name, ringed };
        })()`);
        if (control === null || seen.has(control.name)) break; // round the page and back to the start
        seen.add(control.name);
        if (!control.ringed) unringed.push(`${path}: ${control.name}`);
      }
      expect(seen.size).toBeGreaterThan(5);
    }
    expect(unringed).toEqual([]);
  });

  it('closes the cancel confirmation with Escape and gives focus back to Cancel', async () => {
    await open(`/tasks/${scheduledId}`, /Task/);
    const cancel = page.getByRole('button', { name: 'Cancel', exact: true });
    await cancel.focus();
    await page.keyboard.press('Enter');
    const confirm = page.getByRole('alertdialog');
    await confirm.waitFor();
    // The question takes focus on its safe answer, so a stray Enter keeps the task.
    expect(await focused()).toMatch(/^button Keep it/);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, '33-cancel-confirm-focus', { fullPage: false });
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'detached' });
    expect(await focused()).toMatch(/^button Cancel/);
    expect((await cluster.store.getTask(scheduledId))?.state).toBe('SCHEDULED');
  });

  it('closes the large-send dialog with Escape and gives focus back to Send', async () => {
    await api('PUT', '/api/v1/accounts/acme/limits', { confirmAbove: 10 });
    try {
      await open('/new', 'New broadcast');
      await page.locator('#listFile').setInputFiles({
        name: 'few.txt',
        mimeType: 'text/plain',
        buffer: Buffer.from('1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n'),
      });
      await page.locator('.upload-result').waitFor();
      await page.getByLabel('Message', { exact: true }).fill('To twelve.');
      const send = page.getByRole('button', { name: 'Send broadcast' });
      await send.focus();
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog');
      await dialog.waitFor();
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      expect(await focused()).toMatch(/^button Send broadcast/);
    } finally {
      await api('PUT', '/api/v1/accounts/acme/limits', {});
    }
  });
});
