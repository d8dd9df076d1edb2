import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { TEST_ADMIN_TOKEN } from '@herald/testing';

/** The compiled CLI (jest's global setup builds it), as a user runs it. */
const MAIN = join(__dirname, '..', 'dist', 'main.js');

/**
 * Runs `herald <args>` with the test admin's token in HERALD_TOKEN (or `env`'s variables over it);
 * resolves with its exit code and output.
 */
export function herald(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const vars = { ...process.env, HERALD_TOKEN: TEST_ADMIN_TOKEN, ...env };
    const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: vars });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
