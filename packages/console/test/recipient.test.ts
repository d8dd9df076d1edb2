import { encodeRecipientList } from '@herald/core/recipient-list';
import type { Task } from '@herald/core/task';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { makeTempDir, TEST_TASK_OPTIONS, waitFor, type TempDir } from '@herald/testing';
import type { Page } from 'playwright-core';
import { ensureConsoleBuilt, launchBrowser, screenshot, seriousAxeViolations, type Browser } from './harness';

/**
 * Per-recipient truth in the console (docs/recipient-truth.md), in headless
 * Chromium against a real embedded Herald: an operator looks up a delivered,
 * a blacklisted and an outside uin on a task page, is refused a uin that is
 * no uin before anything is sent, then opens the recipient page from the top
 * bar and follows its link to a task.
 */
const ADMIN_TOKEN = 'hrd_recipient_console-recipient-test-admin-secret-0123';

describe('console: a recipient, looked up', () => {
  let dir: TempDir;
  let cluster: EmbeddedCluster;
  let browser: Browser;
  let page: Page;
  let first: Task;
  let later: Task;
  /** Lookups the page sent to the API, by path. */
  const lookups: string[] = [];

  const admin = async <T>(method: string, path: string, body: Uint8Array | object): Promise<T> => {
    const binary = body instanceof Uint8Array;
    const response = await fetch(cluster.url + path, {
      method,
      headers: {
        authorization: `Bearer ${ADMIN_TOKEN}`,
        'content-type': binary ? 'application/octet-stream' : 'application/json',
      },
      body: binary ? body : JSON.stringify(body),
    });
    const answer = (await response.json()) as T;
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
    return answer;
  };

  async function broadcast(body: string, extra: object = {}): Promise<Task> {
    const list = await admin<{ id: string }>('POST', '/api/v1/lists?accountId=acme', encodeRecipientList([7, 8, 9]));
    return admin<Task>('POST', '/api/v1/tasks', {
      accountId: 'acme',
      listId: list.id,
      content: { body, title: `${body} title` },
      ...extra,
    });
  }

  beforeAll(async () => {
    ensureConsoleBuilt();
    dir = await makeTempDir('herald-console-recipient-');
    cluster = await startEmbeddedCluster({
      dataDir: dir.path,
      uinSpaceBits: 16,
      http: { port: 0 },
      executor: { ids: ['executor-1'] },
      offline: { rangeBits: 8 },
      auth: { bootstrapAdminToken: ADMIN_TOKEN },
      tasks: TEST_TASK_OPTIONS,
    });
    cluster.online.setOnline(7, true);
    await admin('PUT', '/api/v1/blacklists/global', encodeRecipientList([9]));
    const created = await broadcast('Flash sale');
    await waitFor(async () => (await cluster.store.getTask(created.id))?.state === 'COMPLETED', {
      timeoutMs: 30_000,
      message: 'the first broadcast completed',
    });
    first = (await cluster.store.getTask(created.id))!;
    later = await broadcast('Tomorrow', { sendAt: new Date(Date.now() + 3_600_000).toISOString() });
    const operator = await admin<{ token: string }>('POST', '/api/v1/tokens', {
      name: 'Rita Support',
      role: 'operator',
      accounts: ['acme'],
    });
    browser = await launchBrowser();
    page = browser.page;
    page.on('request', (request) => {
      const path = new URL(request.url()).pathname;
      if (path.includes('/recipients/')) lookups.push(path);
    });
    await page.goto(cluster.url + '/');
    await page.getByLabel('API token').fill(operator.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Tasks' }).waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await cluster?.stop();
    await dir?.remove();
  });

  const panel = () => page.locator('.recipient-lookup');
  async function lookUp(uin: string): Promise<void> {
    await panel().getByLabel('uin').fill(uin);
    await panel().getByRole('button', { name: 'Look up' }).click();
  }

  it('says in words what happened to a blacklisted, an outside, an offline and a delivered uin', async () => {
    await page.goto(`${cluster.url}/console/tasks/${first.id}`);
    await panel().getByRole('heading', { name: 'Look up a recipient' }).waitFor();

    await lookUp('9');
    await panel().locator('[data-fate="removed"]').waitFor();
    expect(await panel().locator('.fate').textContent()).toBe('uin 9: Removed: blacklisted (global or account)');

    await lookUp('30');
    await panel().locator('[data-fate="not_in_audience"]').waitFor();
    expect(await panel().locator('.fate').textContent()).toBe('uin 30: Not in the audience');

    await lookUp('8');
    await panel().locator('[data-fate="queued_offline"]').waitFor();
    expect(await panel().locator('.fate').textContent()).toMatch(
      /^uin 8: Queued offline at .* by executor-1, waiting for the user to log in \(until .*\)$/,
    );

    await lookUp('7');
    await panel().locator('[data-fate="delivered_online"]').waitFor();
    expect(await panel().locator('.fate').textContent()).toMatch(
      /^uin 7: Delivered online at \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} by executor-1$/,
    );
    expect(await panel().textContent()).toContain('position 0 in the filtered list');
    await panel().scrollIntoViewIfNeeded();
    await screenshot(page, '45-recipient-lookup');
    expect(await seriousAxeViolations(page)).toEqual([]);
  }, 60_000);

  it('refuses a uin that is no uin in the browser, and shows the server’s words for one outside its uin space', async () => {
    const sent = lookups.length;
    await lookUp('12a');
    const problem = panel().getByRole('alert');
    await problem.waitFor();
    expect(await problem.textContent()).toBe('"12a" is not a uin: use digits only, such as 123456.');
    await lookUp('007');
    await waitFor(
      async () => (await problem.textContent()) === 'A uin has no leading zeros: type it as the list holds it.',
      {
        message: 'the leading-zero refusal',
      },
    );
    expect(lookups.length).toBe(sent);
    await screenshot(page, '46-recipient-lookup-refused');
    expect(await seriousAxeViolations(page)).toEqual([]);

    await lookUp(String(2 ** 16));
    await waitFor(async () => /is not an integer in \[0, 65536\)/.test((await problem.textContent()) ?? ''), {
      message: "the server's refusal shown",
    });
    expect(lookups.length).toBe(sent + 1);
  }, 60_000);

  it('opens the recipient page from the top bar, lists its broadcasts and follows a link to the task', async () => {
    await page.getByLabel('Recipient uin').fill('7');
    await page.getByLabel('Recipient uin').press('Enter');
    await page.getByRole('heading', { name: 'Recipient 7' }).waitFor();
    const rows = page.locator('table.history tbody tr');
    await rows.nth(1).waitFor();
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).getAttribute('data-task')).toBe(String(later.id));
    expect(await rows.nth(0).locator('.fate').textContent()).toMatch(
      /^Unknown: the task is \w+: its list is not filtered yet$/,
    );
    expect(await rows.nth(1).locator('.fate').textContent()).toMatch(/^Delivered online at .* by executor-1$/);
    expect(await page.locator('[data-window]').textContent()).toMatch(
      /Broadcasts of acme created .* \(the last 30 days\); 2 read so far\./,
    );
    await screenshot(page, '47-recipient-page');
    expect(await seriousAxeViolations(page)).toEqual([]);

    await rows
      .nth(1)
      .getByRole('link', { name: `Task ${first.id} · Flash sale title` })
      .click();
    await page.getByRole('heading', { name: new RegExp(`^Task ${first.id}`) }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/console/tasks/${first.id}`);
  }, 60_000);

  it('refuses a uin that is no uin in the top bar, without leaving the page', async () => {
    const path = new URL(page.url()).pathname;
    await page.getByLabel('Recipient uin').fill('abc');
    await page.getByLabel('Recipient uin').press('Enter');
    const problem = page.locator('.recipient-search [role="alert"]');
    await problem.waitFor();
    expect(await problem.textContent()).toBe('"abc" is not a uin: use digits only, such as 123456.');
    expect(new URL(page.url()).pathname).toBe(path);
  }, 30_000);
});
