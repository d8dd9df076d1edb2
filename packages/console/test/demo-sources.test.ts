import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { waitFor } from '@herald/testing';
import type { Page } from 'playwright-core';
import { ensureConsoleBuilt, launchBrowser, REPO_DIR, screenshot, type Browser } from './harness';

/**
 * Issue 22, defect 4: the console's "All followers" and "A targeting query"
 * sources on the embedded profile, as an operator meets them in
 * `herald demo --serve` (the compiled CLI in a child process, which jest's
 * global setup builds): the demo seeds followers of account demo and users'
 * attributes, so Build with either source makes a list that can be sent.
 */
const CLI = join(REPO_DIR, 'packages', 'cli', 'dist', 'main.js');
const QUERY = 'region:eu AND (age:18-24 OR tag:vip) AND active-since:30d';

interface Demo {
  child: ChildProcess;
  url: string;
  token: string;
  followers: string;
  exited: Promise<number | null>;
}

/** Starts `herald demo --serve` and resolves once it serves, with what it printed. */
function startDemo(): Promise<Demo> {
  const child = spawn(process.execPath, [CLI, 'demo', '--recipients', '5000', '--login-share', '0', '--serve'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (!/^Serving: /m.test(stdout)) return;
      const url = /^API (http:\/\/\S+), admin token (hrd_\S+)/m.exec(stdout);
      const followers = /^seeded ([\d,]+) followers of account demo/m.exec(stdout);
      if (url === null || followers === null) return reject(new Error(`the demo printed:\n${stdout}`));
      resolve({ child, url: url[1]!, token: url[2]!, followers: followers[1]!, exited });
    });
    void exited.then((code) => reject(new Error(`the demo exited (${code}):\n${stdout}\n${stderr}`)));
  });
}

describe('the embedded profile demonstrates both audience sources (issue 22, defect 4)', () => {
  let demo: Demo;
  let browser: Browser;
  let page: Page;

  const openNewBroadcast = async () => {
    page.once('dialog', (dialog) => void dialog.accept()); // a half-written form may be open (drafts)
    await page.getByRole('link', { name: 'New broadcast' }).first().click();
    await page.getByRole('heading', { name: 'New broadcast' }).waitFor();
  };

  beforeAll(async () => {
    ensureConsoleBuilt();
    demo = await startDemo();
    browser = await launchBrowser();
    page = browser.page;
    await page.goto(demo.url + '/console/');
    await page.getByLabel('API token').fill(demo.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Tasks' }).waitFor();
    const account = page.getByRole('combobox', { name: 'Account', exact: true });
    await account.fill('demo');
    await account.press('Enter');
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    if (demo !== undefined) {
      demo.child.kill('SIGINT');
      await demo.exited;
    }
  });

  it('builds the list of the demo account followers the demo seeded', async () => {
    await openNewBroadcast();
    await page.getByRole('radio', { name: 'All followers of the account' }).check();
    await page.getByRole('button', { name: 'Build the list of followers' }).click();
    const result = page.locator('.upload-result');
    await result.waitFor({ timeout: 60_000 });
    expect(await result.innerText()).toContain(`${demo.followers} recipients`);
    await screenshot(page, '30-followers-audience');
  });

  it('builds the list of the users a targeting query matches, and sends to them', async () => {
    await page.getByRole('radio', { name: 'A targeting query' }).check();
    await page.getByRole('textbox', { name: 'Targeting query' }).fill(QUERY);
    const build = page.getByRole('button', { name: 'Build the list of matching users' });
    await waitFor(() => build.isEnabled(), { timeoutMs: 10_000, message: 'the query was not accepted' });
    await build.click();
    const result = page.locator('.upload-result');
    await result.waitFor({ timeout: 60_000 });
    const matched = Number(/([\d,]+) recipients/.exec(await result.innerText())![1]!.replace(/,/g, ''));
    expect(matched).toBeGreaterThan(0);
    await screenshot(page, '31-targeting-audience');

    await page.getByLabel('Message', { exact: true }).fill('For the active ones in the EU.');
    await page.getByRole('button', { name: 'Send broadcast' }).click();
    await page.waitForURL(/\/console\/tasks\/\d+$/);
    await page.locator('h1 .badge', { hasText: 'COMPLETED' }).waitFor({ timeout: 90_000 });
  }, 150_000);

  it('says where the followers come from when an account has none', async () => {
    const account = page.getByRole('combobox', { name: 'Account', exact: true });
    await account.fill('nobody');
    await account.press('Enter');
    await openNewBroadcast();
    await page.getByRole('radio', { name: 'All followers of the account' }).check();
    await page.getByRole('button', { name: 'Build the list of followers' }).click();
    const error = page.locator('.field-error[data-field="listId"]');
    await error.waitFor({ timeout: 60_000 });
    expect(await error.innerText()).toBe(
      'Account nobody has no followers in this Herald yet: they arrive by POST /api/v1/follows (herald demo seeds some for account demo).',
    );
  });
});
