import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { FileDeliverySink } from '@herald/executor';
import { makeTempDir, type TempDir } from '@herald/testing';
import type { Page } from 'playwright-core';
import { ensureConsoleBuilt, launchBrowser, screenshot, type Browser } from './harness';

/**
 * Issue 22, "Consistency: error messages in the operator's words": refusals
 * only the server makes (its list checks, its cron parser, its duration
 * bound, the account's speed limit, a listing's q) reach the operator in the
 * form's words, never as request field names, JSON pointers or patterns.
 */
const ADMIN_TOKEN = 'hrd_wordingtest_console-wording-test-admin-secret-012';
/** What no refusal shown may contain. */
const RAW =
  /\buins?\b|ttlSeconds|maxBadRatio|maxSpeed|sendAt|accountId|listId|timeZone|body\/|querystring\/|\^|RFC 3339|IANA|\w+\.\w+Ms\b/;

describe('refusals in the operator’s words', () => {
  let dir: TempDir;
  let cluster: EmbeddedCluster;
  let browser: Browser;
  let page: Page;

  const file = async (name: string, text: string) => {
    const path = join(dir.path, name);
    await writeFile(path, text);
    return path;
  };

  beforeAll(async () => {
    ensureConsoleBuilt();
    dir = await makeTempDir('herald-console-wording-');
    cluster = await startEmbeddedCluster(
      {
        dataDir: dir.path,
        uinSpaceBits: 16,
        http: { port: 0 },
        executor: { ids: ['executor-1'] },
        offline: { rangeBits: 8 },
        auth: { bootstrapAdminToken: ADMIN_TOKEN },
        // Shorter than the console's own bound: only the server refuses 300 hours.
        tasks: { maxTtlMs: 10 * 86_400_000 },
      },
      { gateway: new FileDeliverySink(join(dir.path, 'deliveries')) },
    );
    browser = await launchBrowser();
    page = browser.page;
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

  const saidUnder = async (field: string, words: string) => {
    const error = page.locator(`.field-error[data-field="${field}"]`);
    await error.getByText(words).waitFor();
    const text = await error.innerText();
    expect({ text, raw: RAW.test(text) }).toEqual({ text, raw: false });
  };

  const newBroadcast = async (name: string, csv: string) => {
    await page.goto(`${cluster.url}/console/new`);
    await page.getByRole('heading', { name: 'New broadcast' }).waitFor();
    await page.locator('#listFile').setInputFiles(await file(name, csv));
  };

  it('a list the server refuses: no recipient ids in the file', async () => {
    await newBroadcast('empty.csv', 'uin\n');
    await saidUnder('listId', 'The file holds no recipient ids.');
  });

  it('a duration over the server’s bound, in hours; a speed the account may not set', async () => {
    await newBroadcast('two.csv', 'uin\n7\n8\n');
    await page.locator('.upload-result').waitFor();
    await page.getByLabel('Message', { exact: true }).fill('Hello');
    await page.getByLabel('Duration').fill('300');
    await page.getByRole('button', { name: 'Send broadcast' }).click();
    await saidUnder('duration', 'At most 240 hours (10 days).');

    await page.getByLabel('Duration').fill('');
    await page.getByLabel('Speed').fill('50');
    await page.getByRole('button', { name: 'Send broadcast' }).click();
    await saidUnder('speed', 'This account may not set a speed');
    await screenshot(page, '39-refusal-in-words');
    expect((await cluster.store.listTasks({})).tasks).toEqual([]);
  });

  it('a cron expression and a time zone the server cannot read', async () => {
    await page.getByRole('link', { name: 'Campaigns' }).first().click();
    await page.getByRole('link', { name: 'New campaign' }).click();
    await page.locator('#cron').fill('61 * * * *');
    await saidUnder('cron', "Cron: minute field '61': 61 is outside 0-59");
    await page.locator('#cron').fill('0 9 * * *');
    await page.locator('#timeZone').fill('Mars/Base');
    await saidUnder('timeZone', 'Time zone: “Mars/Base” is not a time zone');
  });

  it('a listing the server refuses says so in the banner, in words', async () => {
    await page.goto(`${cluster.url}/console/tasks?account=&q=${'x'.repeat(201)}`);
    const banner = page.locator('.banner.error');
    await banner.getByText('Search is at most 200 characters.').waitFor();
    expect(RAW.test(await banner.innerText())).toBe(false);
  });
});
