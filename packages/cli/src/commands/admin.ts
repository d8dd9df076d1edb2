import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { ConfigError } from '@herald/core';
import type { HeraldOptions } from '@herald/core/config';
import { hashManagementToken } from '@herald/production';

/** The environment variables `herald admin` reads the management token from: never a command-line argument, which `ps` shows every user. */
export const TOKEN_ENV = 'HERALD_MANAGEMENT_TOKEN';
export const TOKEN_FILE_ENV = 'HERALD_MANAGEMENT_TOKEN_FILE';

/** The management token: from --token-file, else $HERALD_MANAGEMENT_TOKEN_FILE, else $HERALD_MANAGEMENT_TOKEN. */
export async function managementToken(
  tokenFile: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const file = tokenFile ?? env[TOKEN_FILE_ENV];
  const token =
    file !== undefined
      ? await readFile(file, 'utf8').catch((error: Error) => {
          throw new ConfigError('--token-file', `cannot read the management token file ${file}: ${error.message}`);
        })
      : env[TOKEN_ENV];
  if (token === undefined || token.trim() === '')
    throw new ConfigError(
      TOKEN_ENV,
      `no management token: set ${TOKEN_ENV}, or ${TOKEN_FILE_ENV} or --token-file to a file holding it`,
    );
  return token.trim();
}

/**
 * `herald admin credential --out <file>`: makes a management token, writes it
 * to a new file only its user may read, and returns the tokenHash line for
 * the config. The token is never printed.
 */
export async function createCredential(out: string): Promise<string> {
  const token = `hmt_${randomBytes(32).toString('base64url')}`;
  await writeFile(out, `${token}\n`, { mode: 0o600, flag: 'wx' }).catch((error: Error) => {
    throw new ConfigError('--out', `cannot create ${out} (an existing file is never overwritten): ${error.message}`);
  });
  return hashManagementToken(token);
}

/** Where `herald admin` finds a process: `--address`, or the config's management.endpoints. */
export function managementAddress(id: string | undefined, options: HeraldOptions, address?: string): string {
  if (address !== undefined) return address;
  const endpoints = options.management?.endpoints ?? {};
  if (id === undefined) throw new ConfigError('<process>', 'name a process id (or give --address host:port)');
  const found = endpoints[id];
  if (found === undefined)
    throw new ConfigError(
      'management.endpoints',
      `has no entry for ${JSON.stringify(id)} (known: ${Object.keys(endpoints).join(', ') || 'none'})`,
    );
  return found;
}

/** A management endpoint and the token to show it. */
export interface Target {
  address: string;
  token: string;
}

async function call(
  { address, token }: Target,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  let response: Response;
  try {
    response = await fetch(`http://${address}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    throw new Error(`cannot reach the management endpoint ${address}: ${String((error as Error).cause ?? error)}`, {
      cause: error,
    });
  }
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // metrics are text
  }
  if (!response.ok) throw new Error(`${method} ${path} on ${address}: ${response.status} ${text}`);
  return { status: response.status, body: parsed };
}

/** `herald admin status <process>`: prints the process's management status as JSON. */
export async function runAdminStatus(target: Target): Promise<void> {
  const { body } = await call(target, 'GET', '/status');
  process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
}

/**
 * `herald admin drain <process>`: asks the process to drain, then waits until
 * its endpoint stops answering (it exited), printing its state as it goes.
 */
export async function runAdminDrain(target: Target, timeoutMs: number): Promise<void> {
  const { address } = target;
  // The drain names the process it means: ask the endpoint who it is (with --address the id may be unknown here).
  const { id } = (await call(target, 'GET', '/status')).body as { id: string };
  await call(target, 'POST', '/drain', { id });
  process.stdout.write(`herald admin: ${address} draining\n`);
  const deadline = Date.now() + timeoutMs;
  let lastPrint = 0;
  for (;;) {
    let alive = true;
    try {
      const { body } = await call(target, 'GET', '/status');
      if (Date.now() - lastPrint >= 2000) {
        lastPrint = Date.now();
        const s = body as { id?: string; state?: string };
        process.stdout.write(`herald admin: ${s.id ?? address} ${s.state ?? '?'}\n`);
      }
    } catch {
      alive = false;
    }
    if (!alive) {
      process.stdout.write(`herald admin: ${address} drained and exited\n`);
      return;
    }
    if (Date.now() >= deadline) throw new Error(`${address} still running ${timeoutMs} ms after the drain was asked`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** `herald admin fault <process> --traffic-cut on|off` (needs management.faults on the process). */
export async function runAdminTrafficCut(target: Target, cut: boolean): Promise<void> {
  const { body } = await call(target, 'POST', '/faults/traffic-cut', { cut });
  process.stdout.write(`${JSON.stringify(body)}\n`);
}

/** The tier of a process id as the config's topology names it; controllers are the ids it does not name. */
function tierOf(id: string, options: HeraldOptions): string {
  const topology = options.topology ?? {};
  for (const [group, tier] of [
    ['schedulers', 'scheduler'],
    ['dispatchers', 'dispatcher'],
    ['executors', 'executor'],
    ['presence', 'presence'],
    ['interfaces', 'interface'],
  ] as const) {
    if ((topology[group] ?? []).some((m) => m.id === id)) return tier;
  }
  return 'controller';
}

/**
 * `herald admin targets -c <config>`: a Prometheus file_sd targets file (JSON)
 * with every management endpoint of the config, labelled by process id and tier
 * (deploy/monitoring/prometheus.yml).
 */
export function adminTargets(
  options: HeraldOptions,
): { targets: string[]; labels: { process: string; tier: string } }[] {
  const endpoints = options.management?.endpoints ?? {};
  if (Object.keys(endpoints).length === 0)
    throw new ConfigError('management.endpoints', 'names no process: nothing to scrape');
  return Object.entries(endpoints)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([id, address]) => ({ targets: [address], labels: { process: id, tier: tierOf(id, options) } }));
}
