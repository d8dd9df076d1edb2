import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir, waitFor } from '@herald/testing';

/**
 * The `herald` command as a user runs it: the compiled CLI in a child process
 * (jest's global setup builds it first).
 */
const MAIN = join(__dirname, '..', 'dist', 'main.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function herald(args: string[], onStdout?: (text: string, child: ReturnType<typeof spawn>) => void): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      onStdout?.(stdout, child);
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('herald demo', () => {
  it('runs a broadcast through the real tiers and prints a reconciled summary', async () => {
    const run = await herald(['demo', '--recipients', '20000', '--online', '0.3', '--login-share', '0.05']);
    expect(run.stderr).not.toMatch(/"level":"error"/);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Task 1: COMPLETED/);
    expect(run.stdout).toMatch(/total in list\s+20,000/);
    expect(run.stdout).toMatch(/filtered: duplicate\s+400/);
    expect(run.stdout).toMatch(/reconciled: total = delivered \+ offline \+ filtered/);
    expect(run.stderr).toMatch(/login delivery\s+\d[\d,]* offline users logged in; \d[\d,]* offline deliveries of task 1/);
  });

  it('refuses a bad option with a clear message', async () => {
    const run = await herald(['demo', '--online', '2']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/--online must be a number in \[0, 1\]/);
  });
});

describe('herald dev', () => {
  it('fails at start with one line naming a bad setting', async () => {
    const dir = await makeTempDir('herald-cli-');
    try {
      const config = join(dir.path, 'herald.json');
      await writeFile(config, JSON.stringify({ scheduler: { slots: 0 } }));
      const run = await herald(['dev', '--config', config]);
      expect(run.code).toBe(1);
      expect(run.stderr.trim()).toBe('herald: CONFIG_INVALID: config scheduler.slots: must be an integer in [1, 100000] (got 0)');

      await writeFile(config, '{ not json');
      const broken = await herald(['dev', '--config', config]);
      expect(broken.code).toBe(1);
      expect(broken.stderr).toMatch(/^herald: CONFIG_INVALID: config --config: .*herald\.json is not valid JSON/);
    } finally {
      await dir.remove();
    }
  });

  it('serves the API until SIGTERM, then stops cleanly', async () => {
    const dir = await makeTempDir('herald-cli-');
    let url: string | undefined;
    try {
      const running = herald(['dev', '--port', '0', '--data-dir', dir.path], (text, child) => {
        const match = /listening on (http:\/\/[^;\s]+)/.exec(text);
        if (match && url === undefined) {
          url = match[1];
          void fetch(`${url}/api/v1/health`)
            .then((r) => r.json())
            .then((body) => {
              expect(body).toEqual({ status: 'ok' });
              child.kill('SIGTERM');
            });
        }
      });
      await waitFor(() => url !== undefined, { timeoutMs: 30_000, message: 'herald dev did not print its URL' });
      const run = await running;
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/stopping/);
    } finally {
      await dir.remove();
    }
  });
});
