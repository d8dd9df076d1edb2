import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import type { Delivery, DeliveryGateway } from '@herald/core/ports';

/**
 * What the console's browser tests need: a fresh build of the console, a
 * headless Chromium (Debian's, never a downloaded one), a place for
 * screenshots, and a delivery gateway the test can meter.
 */

const PACKAGE_DIR = resolve(__dirname, '..');
export const REPO_DIR = resolve(PACKAGE_DIR, '../..');

/** Where screenshots go: docs/screenshots (the operator guide shows them), or HERALD_SCREENSHOT_DIR. */
export const SCREENSHOT_DIR = process.env.HERALD_SCREENSHOT_DIR ?? join(REPO_DIR, 'docs', 'screenshots');

/** Debian's chromium package; CHROMIUM_PATH overrides it. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((newest, name) => Math.max(newest, newestMtime(join(path, name))), stat.mtimeMs);
}

/**
 * Builds the console (type check, then vite) when dist/ is missing or older than its sources,
 * so the test always drives the code it sits beside. `npm run lint` and
 * `npm run build` build it too; then this is a no-op.
 */
export function ensureConsoleBuilt(): void {
  const index = join(PACKAGE_DIR, 'dist', 'index.html');
  const sources = ['src', 'public', 'index.html', 'vite.config.mts']
    .map((p) => join(PACKAGE_DIR, p))
    .filter((p) => existsSync(p))
    .map(newestMtime);
  if (existsSync(index) && statSync(index).mtimeMs >= Math.max(...sources)) return;
  // NODE_ENV=test (set by jest) would make Vite bundle React's development build.
  execFileSync('npm', ['run', '--silent', 'build'], {
    cwd: PACKAGE_DIR,
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
  });
}

export interface Browser {
  page: Page;
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Headless Chromium with a new, empty profile. The background-networking
 * flags matter on a closed network: without them Chromium's own update and
 * sync connections are refused and can stall it.
 */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH))
    throw new Error(`no Chromium at ${CHROMIUM_PATH}: install Debian's chromium package (deploy/test-all.sh does)`);
  const profile = await mkdtemp(join(tmpdir(), 'herald-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    viewport: { width: 1360, height: 860 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  context.setDefaultTimeout(30_000);
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    page,
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Saves a full-page screenshot as <SCREENSHOT_DIR>/<name>.png; `fullPage:
 * false` for the viewport alone (a modal dialog's backdrop covers only the
 * viewport, so a full page would show it cut off).
 */
export async function screenshot(
  page: Page,
  name: string,
  { fullPage = true }: { fullPage?: boolean } = {},
): Promise<void> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage });
}

/**
 * A gateway in front of another that lets through only as many batches as
 * the test allows: `allow(n)` lets n more through, `open()` all of them. A
 * held batch waits in `deliver`, so a broadcast stays SENDING at a known
 * point until the test lets it go on: nothing races the browser.
 */
export class MeteredGateway implements DeliveryGateway {
  private credit = Number.POSITIVE_INFINITY;
  private readonly waiting: (() => void)[] = [];
  /** Batches that are waiting for credit. */
  held = 0;
  delivered = 0;

  constructor(private readonly inner: DeliveryGateway) {}

  allow(batches: number): void {
    this.credit = Number.isFinite(this.credit) ? this.credit + batches : batches;
    this.wake();
  }

  hold(): void {
    this.credit = 0;
  }

  open(): void {
    this.credit = Number.POSITIVE_INFINITY;
    this.wake();
  }

  async deliver(delivery: Delivery): Promise<void> {
    while (this.credit <= 0) {
      this.held++;
      await new Promise<void>((resolve) => this.waiting.push(resolve));
      this.held--;
    }
    this.credit--;
    await this.inner.deliver(delivery);
    this.delivered++;
  }

  close(): Promise<void> {
    this.open();
    return this.inner.close();
  }

  private wake(): void {
    for (const resolve of this.waiting.splice(0)) resolve();
  }
}

/** One rule axe-core found broken, with the elements that break it. */
export interface AxeViolation {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

let axeSource: string | undefined;

/**
 * Runs axe-core over the page as it is now and returns the violations at
 * the "serious" and "critical" levels (the bar; "moderate" and
 * "minor" are left to judgement). axe's source is injected once per page
 * load with addScriptTag, so the page under test ships no axe.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  if (!(await page.evaluate<boolean>('typeof window.axe === "object"')))
    await page.addScriptTag({ content: axeSource });
  // (Source text: the tests are type-checked without the DOM's types.)
  return page.evaluate<AxeViolation[]>(`axe.run(document, { resultTypes: ['violations'] }).then((result) =>
    result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) })))`);
}

/**
 * A JSON (or, for a Uint8Array body, binary) API caller with a bearer token,
 * for a test's setup: a refusal throws with its status and body.
 */
export function apiAs(urlOf: () => string, token: string) {
  return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const binary = body instanceof Uint8Array;
    const response = await fetch(urlOf() + path, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': binary ? 'application/octet-stream' : 'application/json' }),
      },
      body: body === undefined ? undefined : binary ? body : JSON.stringify(body),
    });
    const answer = (await response.json()) as T;
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
    return answer;
  };
}
