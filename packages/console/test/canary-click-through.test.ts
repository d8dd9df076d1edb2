import { join } from 'node:path';
import { TypedArrayBitmap } from '@herald/core/presence';
import type { DeliveryGateway } from '@herald/core/ports';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { makeTempDir, TEST_TASK_OPTIONS, type TempDir } from '@herald/testing';
import type { Page } from 'playwright-core';
import type { Task } from '../src/api/types';
import {
  apiAs,
  ensureConsoleBuilt,
  launchBrowser,
  screenshot,
  seriousAxeViolations,
  SCREENSHOT_DIR,
  type Browser,
} from './harness';

/**
 * A canary's minimum click-through in the console (issue 21, docs/rollouts.md
 * "Click-through"), in headless Chromium against an embedded Herald: the
 * new-broadcast form refuses a bad minimum under its field and sends a good
 * one; clicks reported through the API show on the task page's canary panel
 * against it; once the hold ends, a canary with too few clicks paused itself
 * and the panel says so in words. A campaign's template keeps the minimum
 * through create, edit and clearing. The cluster's clock runs `shift` ahead
 * of the wall clock: moving it ends a hold.
 */
const ADMIN_TOKEN = 'hrd_clickthroughtest_console-canary-click-through-admin-01';

/** Takes every push: the canary's sample stays healthy on the channel's side, so only clicks can fail it. */
const gateway: DeliveryGateway = {
  deliver: () => Promise.resolve(),
  close: () => Promise.resolve(),
};

const AUDIENCE = Array.from({ length: 300 }, (_, i) => 2000 + i);

describe('a canary judged on click-through, in the console (Chromium)', () => {
  let dir: TempDir;
  let cluster: EmbeddedCluster;
  let browser: Browser;
  let page: Page;
  let shift = 0;
  const admin = apiAs(() => cluster.url, ADMIN_TOKEN);
  const taskCount = async () => (await admin<{ tasks: Task[] }>('GET', '/api/v1/tasks?accountId=acme')).tasks.length;
  const uploadAudience = async () => {
    await page.locator('#listFile').setInputFiles({
      name: 'audience.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from(AUDIENCE.join('\n') + '\n'),
    });
    await page.locator('.upload-result').waitFor();
  };

  beforeAll(async () => {
    ensureConsoleBuilt();
    dir = await makeTempDir('herald-console-click-through-');
    const online = new TypedArrayBitmap(2 ** 16);
    for (const uin of AUDIENCE) online.setOnline(uin, true);
    cluster = await startEmbeddedCluster(
      {
        dataDir: dir.path,
        uinSpaceBits: 16,
        http: { port: 0 },
        executor: { ids: ['executor-1'] },
        auth: { bootstrapAdminToken: ADMIN_TOKEN },
        tasks: TEST_TASK_OPTIONS,
      },
      { gateway, online, clock: { now: () => Date.now() + shift } },
    );
    const operator = await admin<{ token: string }>('POST', '/api/v1/tokens', {
      name: 'Cleo Clicks',
      role: 'operator',
      accounts: ['acme'],
    });
    browser = await launchBrowser();
    page = browser.page;
    page.on('dialog', (dialog) => void dialog.accept());
    await page.goto(cluster.url + '/console/');
    await page.getByLabel('API token').fill(operator.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Tasks' }).waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await cluster?.stop();
    await dir?.remove();
  });

  it('sends a canary with a minimum click-through; reported clicks show against it; too few pause it, said in words', async () => {
    await page.goto(cluster.url + '/console/new');
    await page.getByRole('heading', { name: 'New broadcast' }).waitFor();
    await uploadAudience();
    await page.locator('#body').fill('Checkout is live');
    await page.locator('summary', { hasText: 'Advanced delivery' }).click();
    await page.getByLabel('Start as a canary').check();
    await page.locator('#canarySample').fill('50');
    await page.locator('#canaryHold').fill('5');
    expect(await page.getByLabel('Pause below').inputValue()).toBe('');

    // Out of range: refused under its own field, naming it, and nothing is created.
    await page.getByLabel('Pause below').fill('150');
    const before = await taskCount();
    await page.getByRole('button', { name: 'Send broadcast' }).click();
    const error = page.locator('.field-error[data-field="canaryMinClickThrough"]');
    await error.waitFor();
    expect(await error.innerText()).toBe('Minimum click-through: a percent from 0 to 100.');
    expect(await taskCount()).toBe(before);

    await page.getByLabel('Pause below').fill('2');
    await error.waitFor({ state: 'detached' });
    await screenshot(page, '72-canary-min-click-through');
    await page.getByRole('button', { name: 'Send broadcast' }).click();
    await page.waitForURL(/\/console\/tasks\/\d+$/);
    const id = Number(/\/tasks\/(\d+)$/.exec(page.url())![1]);
    const created = await admin<Task>('GET', `/api/v1/tasks/${id}`);
    expect(created.rollout?.canary).toEqual({
      sample: '50%',
      holdSeconds: 300,
      thresholds: { rejectedRatio: 0.05, failedRatio: 0.05, minClickThrough: 0.02 },
    });
    expect(await page.locator('[data-setting="canary"]').innerText()).toBe(
      '50% of the recipients first, hold 5 min; stop above 5% rejected or 5% failed, or below 2% click-through',
    );

    // Holding after its sample, nothing reported yet: the panel says a missing report is not judged.
    await page
      .locator('[data-canary="sampling"]', { hasText: 'Holding after the sample' })
      .waitFor({ timeout: 30_000 });
    expect(await page.locator('[data-engagement="clicks"]').innerText()).toBe('None reported yet.');
    expect(await page.locator('[data-engagement="minimum"]').innerText()).toBe(
      '2%: below it when the hold ends, the broadcast pauses itself.',
    );

    // One click over the sample's online deliveries: the panel picks the report up on its next poll.
    const holding = await admin<Task>('GET', `/api/v1/tasks/${id}`);
    const delivered = holding.report.delivered;
    expect(delivered).toBe(holding.report.canary!.sample);
    const reported = await admin<{ engagement: { clicks: number; opens?: number } }>(
      'POST',
      `/api/v1/tasks/${id}/engagement`,
      { clicks: 1, opens: 20 },
    );
    expect(reported.engagement).toMatchObject({ clicks: 1, opens: 20 });
    const rate = `${+((1 / delivered) * 100).toFixed(2)}%`;
    await page
      .locator('[data-engagement="click-through"]', {
        hasText: `${rate} of the sample so far (1 of ${delivered} delivered online)`,
      })
      .waitFor();
    expect(await page.locator('[data-engagement="clicks"]').innerText()).toMatch(/^1 click, 20 opens; last raised /);
    await screenshot(page, '73-task-canary-clicks-reported');

    // The hold ends: under 2% the canary pauses itself, and the panel says why in words.
    shift += 10 * 60_000;
    const failed = page.locator('[data-canary="failed"]');
    await failed.waitFor({ timeout: 30_000 });
    expect(await failed.innerText()).toBe(
      `Failed: too few clicks. ${rate} of the sample's recipients delivered online clicked, under the minimum of 2%. The broadcast paused itself; nobody beyond the sample was sent anything.`,
    );
    expect(await page.locator('[data-engagement="click-through"]').innerText()).toBe(
      `${rate} of the sample's recipients delivered online, judged when the hold ended`,
    );
    const paused = await admin<Task>('GET', `/api/v1/tasks/${id}`);
    expect(paused).toMatchObject({ state: 'PAUSED', error: { code: 'CANARY_FAILED' } });
    expect(paused.report.canary!.clickThrough).toBeCloseTo(1 / delivered, 9);
    expect(paused.report.delivered).toBe(delivered);
    await page.getByRole('button', { name: 'Promote: send the rest' }).waitFor();
    // The panel alone: the page's other times run on the wall clock, now behind the cluster's shifted one.
    await page.locator('.canary-panel').screenshot({ path: join(SCREENSHOT_DIR, '74-task-canary-too-few-clicks.png') });
    expect(await seriousAxeViolations(page)).toEqual([]);
  }, 120_000);

  it("keeps a campaign template's minimum click-through through create, edit and clearing", async () => {
    await page.goto(cluster.url + '/console/campaigns/new');
    await page.getByRole('heading', { name: 'New campaign' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Weekly picks');
    await page.getByLabel('Time zone').fill('UTC');
    await page.getByLabel('Cron').fill('0 9 * * 1');
    await uploadAudience();
    await page.locator('#body').fill('Your picks of the week');
    await page.locator('summary', { hasText: 'Advanced delivery' }).click();
    await page.getByLabel('Start as a canary').check();
    await page.getByLabel('Pause below').fill('abc');
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await page
      .locator('.field-error[data-field="canaryMinClickThrough"]', { hasText: 'Minimum click-through' })
      .waitFor();
    expect((await admin<{ campaigns: unknown[] }>('GET', '/api/v1/campaigns?q=Weekly')).campaigns).toEqual([]);
    await page.getByLabel('Pause below').fill('3.5');
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await page.waitForURL(/\/console\/campaigns\/\d+$/);
    const id = /\/campaigns\/(\d+)$/.exec(page.url())![1]!;
    const template = async () =>
      (await admin<{ template: { canary?: { thresholds: Record<string, number> } } }>('GET', `/api/v1/campaigns/${id}`))
        .template;
    expect((await template()).canary?.thresholds).toEqual({
      rejectedRatio: 0.05,
      failedRatio: 0.05,
      minClickThrough: 0.035,
    });
    expect(await page.locator('[data-setting="campaign-rollout"]').innerText()).toMatch(
      /or below 3\.5% click-through\.$/,
    );

    // Edit shows it as set; cleared, the saved template's canary has no minimum.
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    await page.locator('summary', { hasText: 'Advanced delivery' }).click();
    expect(await page.getByLabel('Pause below').inputValue()).toBe('3.5');
    await page.getByLabel('Pause below').fill('');
    await page.getByRole('button', { name: 'Save changes' }).click();
    // The button is renamed "Saving…" at once; the form closes only once the PATCH answered.
    await page.getByRole('form', { name: 'Change the campaign' }).waitFor({ state: 'detached' });
    expect((await template()).canary?.thresholds).toEqual({ rejectedRatio: 0.05, failedRatio: 0.05 });
    await page.locator('[data-setting="campaign-rollout"]:not(:has-text("click-through"))').waitFor();
  }, 90_000);
});
