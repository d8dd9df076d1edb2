import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeRecipientList } from '@herald/core/recipient-list';
import { syntheticAudience } from '@herald/audience';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { FileDeliverySink } from '@herald/executor';
import { makeTempDir, waitFor, type TempDir } from '@herald/testing';
import type { Page } from 'playwright-core';
import { ensureConsoleBuilt, launchBrowser, MeteredGateway, screenshot, type Browser } from './harness';

/**
 * Issue 15, "No accidental broadcast", in the console, against a real
 * embedded Herald: the dry-run preview shows what the API's dry run says;
 * a large broadcast opens a dialog that asks for the recipient count
 * (dismissed: nothing created; confirmed: the task exists); a broadcast
 * sent now counts down its undo window and Cancel stops it with nothing
 * delivered; a campaign shows its daily reach and a too-frequent schedule
 * is refused under the cron field. Screenshots go to docs/screenshots.
 */
const ADMIN_TOKEN = 'hrd_guardtest_console-guard-test-admin-secret-012345678';
const uinSpaceBits = 20;
/** Long enough that the browser sees the countdown on a loaded machine; the test never waits it out. */
const UNDO_GRACE_MS = 60_000;
const fmt = (n: number) => n.toLocaleString('en-US');

interface DryRun {
  recipients: { listed: number; kept: number; removed: Record<string, number> };
  confirmationRequired: boolean;
  sendAt: number;
  expiresAt: number;
}

describe('console guard against accidental broadcasts', () => {
  let dir: TempDir;
  let gateway: MeteredGateway;
  let cluster: EmbeddedCluster;
  let browser: Browser;
  let page: Page;
  let listFile: string;
  const audience = syntheticAudience({ recipients: 3000, onlineFraction: 0.5, uinLimit: 2 ** uinSpaceBits, seed: 11 });

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(cluster.url + path, {
      method,
      headers: {
        authorization: `Bearer ${ADMIN_TOKEN}`,
        ...(body instanceof Uint8Array
          ? { 'content-type': 'application/octet-stream' }
          : body === undefined
            ? {}
            : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : body instanceof Uint8Array ? body : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const answer = await call(method, path, body);
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body as T;
  };
  const tasksOfAcme = async () => (await api<{ tasks: { id: number }[] }>('GET', '/api/v1/tasks?accountId=acme')).tasks;
  /** The body the console sent in its last POST /api/v1/tasks of this kind, read off the wire. */
  const nextTaskPost = (dryRun: boolean) =>
    page.waitForRequest(
      (r) =>
        r.method() === 'POST' &&
        new URL(r.url()).pathname === '/api/v1/tasks' &&
        r.url().includes('dryRun=true') === dryRun,
    );

  beforeAll(async () => {
    ensureConsoleBuilt();
    dir = await makeTempDir('herald-console-guard-');
    gateway = new MeteredGateway(new FileDeliverySink(join(dir.path, 'deliveries')));
    cluster = await startEmbeddedCluster(
      {
        dataDir: dir.path,
        uinSpaceBits,
        http: { port: 0 },
        dispatcher: { batchSize: 500, unitSize: 5000 },
        executor: { ids: ['executor-1'] },
        offline: { rangeBits: 12 },
        tasks: { undoGraceMs: UNDO_GRACE_MS },
        auth: { bootstrapAdminToken: ADMIN_TOKEN },
      },
      { gateway },
    );
    await api('PUT', '/api/v1/blacklists/global', encodeRecipientList(audience.blacklist));
    listFile = join(dir.path, 'members.csv');
    await writeFile(listFile, 'uin\n' + Array.from(audience.list, String).join('\n') + '\n');
    browser = await launchBrowser();
    page = browser.page;
    await page.goto(cluster.url + '/');
    await page.getByLabel('API token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Tasks' }).waitFor();
    // An admin types the account to act for.
    const account = page.getByRole('combobox', { name: 'Account', exact: true });
    await account.fill('acme');
    await account.press('Enter');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    gateway?.open();
    await cluster?.stop();
    await dir?.remove();
  });

  const dialog = () => page.getByRole('dialog');

  /** A fresh new-broadcast form with the list uploaded and a message written, to send now. */
  const fillBroadcast = async (message: string) => {
    await page.getByRole('link', { name: 'New broadcast' }).first().click();
    await page.getByRole('heading', { name: 'New broadcast' }).waitFor();
    await page.locator('#listFile').setInputFiles(listFile);
    await page.locator('.upload-result').waitFor();
    await page.getByLabel('Message', { exact: true }).fill(message);
  };

  it("previews the broadcast with the API's dry-run numbers and creates nothing", async () => {
    await fillBroadcast('Members: the pool opens at seven.');
    const sent = nextTaskPost(true);
    await page.getByRole('button', { name: 'Preview recipients' }).click();
    const body = (await sent).postDataJSON() as Record<string, unknown>;
    await page.locator('[data-dry="kept"]').waitFor();
    const server = await api<DryRun>('POST', '/api/v1/tasks?dryRun=true', body);
    expect(server.recipients.listed).toBe(audience.list.length);
    expect(await page.locator('[data-dry="listed"]').innerText()).toBe(fmt(server.recipients.listed));
    expect(await page.locator('[data-dry="kept"]').innerText()).toBe(fmt(server.recipients.kept));
    const removed = Object.entries(server.recipients.removed).filter(([, n]) => n > 0);
    expect(removed.length).toBeGreaterThan(0);
    for (const [reason, n] of removed)
      expect(await page.locator(`[data-dry-reason="${reason}"]`).innerText()).toBe(fmt(n));
    expect(await page.locator('[data-dry-reason]').count()).toBe(removed.length);
    await screenshot(page, '13-dry-run-preview');
    expect(await tasksOfAcme()).toEqual([]);
  });

  let confirmedTaskId: number;

  it('asks for the recipient count before a large broadcast: dismissed, nothing is created; confirmed, the task is', async () => {
    // "Large" for this test: lower the account's threshold rather than upload a million ids.
    await api('PUT', '/api/v1/accounts/acme/limits', { confirmAbove: 100 });
    await fillBroadcast('Members: the pool is closed today.');
    // The preview says beforehand that sending will ask.
    await page.getByRole('button', { name: 'Preview recipients' }).click();
    await page.locator('[data-dry="confirmation"]').waitFor();
    const refused = page.waitForResponse(
      (r) => new URL(r.url()).pathname === '/api/v1/tasks' && r.request().method() === 'POST',
    );
    await page.getByRole('button', { name: 'Send broadcast' }).click();
    const answer = await refused;
    expect(answer.status()).toBe(409);
    const recipients = ((await answer.json()) as { error: { details: { recipients: number } } }).error.details
      .recipients;
    expect(recipients).toBeGreaterThan(100);
    const people = fmt(recipients);

    await dialog()
      .getByRole('heading', { name: `You are about to send to ${people} people` })
      .waitFor();
    const send = dialog().getByRole('button', { name: `Send to ${people} people` });
    expect(await send.isDisabled()).toBe(true);
    // Escape closes it, with nothing created.
    await page.keyboard.press('Escape');
    await dialog().waitFor({ state: 'detached' });
    expect(await tasksOfAcme()).toEqual([]);

    // So does Cancel; a wrong count never enables the send button.
    await page.getByRole('button', { name: 'Send broadcast' }).click();
    await dialog().waitFor();
    await dialog()
      .getByLabel('Type the number of recipients')
      .fill(String(recipients - 1));
    expect(await send.isDisabled()).toBe(true);
    await dialog().getByRole('button', { name: 'Cancel', exact: true }).click();
    await dialog().waitFor({ state: 'detached' });
    expect(await tasksOfAcme()).toEqual([]);

    await page.getByRole('button', { name: 'Send broadcast' }).click();
    await dialog().getByLabel('Type the number of recipients').fill(people);
    await screenshot(page, '14-confirm-large-send', { fullPage: false });
    const created = nextTaskPost(false);
    await send.click();
    expect((await created).postDataJSON()).toMatchObject({ confirm: recipients });
    await page.waitForURL(/\/console\/tasks\/\d+$/);
    confirmedTaskId = Number(/tasks\/(\d+)$/.exec(page.url())![1]);
    expect((await tasksOfAcme()).map((t) => t.id)).toEqual([confirmedTaskId]);
  });

  it('counts down the undo window of a broadcast sent now, and Cancel stops it with nothing delivered', async () => {
    await page.locator('h1 .badge', { hasText: 'SCHEDULED' }).waitFor();
    const countdown = page.getByRole('timer', { name: 'send countdown' });
    await countdown.getByText(/Sending in \d+ s/).waitFor();
    // It counts: the text changes while the page is open.
    const first = await countdown.locator('.countdown-text').innerText();
    await waitFor(async () => (await countdown.locator('.countdown-text').innerText()) !== first, {
      timeoutMs: 5000,
      message: 'the countdown did not move',
    });
    await screenshot(page, '15-undo-countdown');

    await countdown.getByRole('button', { name: 'Cancel broadcast' }).click();
    await page.locator('h1 .badge', { hasText: 'CANCELLED' }).waitFor();
    await countdown.waitFor({ state: 'detached' });
    // The summary no longer counts down to a send that will not happen.
    await page.getByText('cancelled: not sent').waitFor();
    const task = (await cluster.store.getTask(confirmedTaskId))!;
    expect(task.state).toBe('CANCELLED');
    expect(task.report.delivered + task.report.offline).toBe(0);
    expect(gateway.delivered).toBe(0);
    expect(gateway.held).toBe(0);
  });

  it('refuses a too-frequent campaign under the cron field, and shows the daily reach before enabling one', async () => {
    await page.getByRole('link', { name: 'Campaigns' }).first().click();
    await page.getByRole('link', { name: 'New campaign' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Pool news');
    await page.getByLabel('Time zone').fill('UTC');
    await page.locator('#listFile').setInputFiles(listFile);
    await page.locator('.upload-result').waitFor();
    await page.getByLabel('Message', { exact: true }).fill('Pool news of the day.');
    await page.getByLabel('Cron').fill('*/5 * * * *');
    await page.locator('ol.fire-times li').nth(4).waitFor();
    // Every five minutes: 288 firings a day, estimated from the fire times before saving.
    await page.locator('[data-reach="firingsPerDay"]', { hasText: '288' }).waitFor();
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await page.locator('.field-error[data-field="cron"]', { hasText: 'fires too often' }).waitFor();
    await screenshot(page, '16-campaign-too-often');

    await page.getByLabel('Cron').fill('0 9,18 * * *');
    await page.locator('.field-error[data-field="cron"]').waitFor({ state: 'detached' });
    await page.getByLabel('Fire on schedule as soon as it is saved').uncheck();
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await page.waitForURL(/\/console\/campaigns\/\d+$/);
    await page.locator('h1 .badge', { hasText: 'disabled' }).waitFor();
    const id = /campaigns\/(\d+)$/.exec(page.url())![1];
    const reach = (
      await api<{
        projectedDailyReach: { firingsPerDay: number; recipientsPerFiring: number; recipientsPerDay: number };
      }>('GET', `/api/v1/campaigns/${id}`)
    ).projectedDailyReach;
    expect(reach.firingsPerDay).toBe(2);
    await page.locator('[data-reach="recipientsPerDay"]', { hasText: fmt(reach.recipientsPerDay) }).waitFor();
    expect(await page.locator('[data-reach="recipientsPerFiring"]').innerText()).toBe(fmt(reach.recipientsPerFiring));
    await screenshot(page, '17-campaign-daily-reach');

    // Editing the schedule meets the same rule, worded the same way; discarded, the campaign keeps its schedule.
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Cron', { exact: true }).fill('* * * * *');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page
      .locator('.field-error[data-field="edit-cron"]', { hasText: 'fires too often (1 minute apart at its closest)' })
      .waitFor();
    await page.getByRole('button', { name: 'Discard' }).click();
    expect((await api<{ cron: string }>('GET', `/api/v1/campaigns/${id}`)).cron).toBe('0 9,18 * * *');
    // The list shows the reach beside its Enable button too.
    await page.getByRole('link', { name: 'Campaigns' }).first().click();
    expect(await page.locator(`[data-reach-of="${id}"]`).innerText()).toBe(fmt(reach.recipientsPerDay));
  });
});
