import { spawn } from 'node:child_process';
import { readdir, writeFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { makeTempDir, waitFor, type TempDir } from '@herald/testing';

/**
 * `herald dev` stops on SIGTERM within http.shutdownGraceMs (plus its own
 * stop) while an API client stalls half way through an upload. Before the
 * bound, the process waited for that client for ever. The compiled CLI in a
 * child process (jest's global setup builds it first).
 */
const MAIN = join(__dirname, '..', 'dist', 'main.js');
/** Far above a 300 ms grace and the cluster's own stop on a loaded machine; "never" is what it guards against. */
const DEADLINE_MS = 30_000;

let dir: TempDir;
let child: ReturnType<typeof spawn> | undefined;
let client: Socket | undefined;

beforeEach(async () => {
  dir = await makeTempDir('herald-cli-dev-stop-');
});

afterEach(async () => {
  client?.destroy();
  if (child !== undefined && child.exitCode === null) child.kill('SIGKILL');
  await dir.remove();
});

/** A list header declaring 1000 uins (only its first bytes are ever sent): enough for the upload to reach the repository. */
function stalledUpload(url: string, token: string): Socket {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  socket.on('error', () => undefined);
  socket.write(
    'POST /api/v1/lists?accountId=acme HTTP/1.1\r\nhost: x\r\nconnection: keep-alive\r\ncontent-type: application/octet-stream\r\n' +
      `authorization: Bearer ${token}\r\ncontent-length: ${32 + 8 * 1000}\r\n\r\n`,
  );
  socket.write(Buffer.from('HRLS'));
  return socket;
}

/** herald dev under `shutdownGraceMs`, with a client stalled mid-upload once the upload reached the list repository. */
async function devWithStalledUpload(shutdownGraceMs: number) {
  const config = join(dir.path, 'herald.json');
  await writeFile(config, JSON.stringify({ http: { shutdownGraceMs }, uinSpaceBits: 20 }));
  const env = { ...process.env };
  delete env.HERALD_ADMIN_TOKEN;
  const started = spawn(process.execPath, [MAIN, 'dev', '--port', '0', '--data-dir', dir.path, '--config', config], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  child = started;
  const output = { stdout: '', stderr: '' };
  started.stdout!.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  started.stderr!.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => started.once('close', (code) => resolve(code)));

  await waitFor(() => /admin token .*: hrd_\S+/.test(output.stdout), {
    timeoutMs: DEADLINE_MS,
    message: 'herald dev printing its URL and admin token',
  });
  const url = /listening on (http:\/\/[^;\s]+)/.exec(output.stdout)![1]!;
  const token = /admin token .*: (hrd_\S+)/.exec(output.stdout)![1]!;
  client = stalledUpload(url, token);
  // The upload has reached the list repository once its temp file exists.
  const listsDir = join(dir.path, 'lists');
  await waitFor(async () => (await readdir(listsDir).catch(() => [])).some((name) => name.endsWith('.tmp')), {
    timeoutMs: DEADLINE_MS,
    message: 'the upload reaching the list repository',
  });
  /** Its exit status, or 'late' when it is still running after DEADLINE_MS. */
  const exit = async () => {
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([
      exited,
      new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), DEADLINE_MS))),
    ]);
    clearTimeout(timer);
    return code;
  };
  return { started, output, exit };
}

it('herald dev stops on SIGTERM while a client stalls mid-upload', async () => {
  const { started, output, exit } = await devWithStalledUpload(300);
  started.kill('SIGTERM');
  expect(await exit()).toBe(0);
  expect(output.stdout).toMatch(/stopping/);
});

it('a SIGTERM after the SIGINT that herald dev is stopping on, waiting out a long grace, exits at once with status 143', async () => {
  // Ten minutes for in-flight requests: the first signal's stop waits that long for the stalled client.
  const { started, output, exit } = await devWithStalledUpload(600_000);
  // Ctrl-C, then the service manager's SIGTERM: any second stop signal, not only the same one again.
  started.kill('SIGINT');
  await waitFor(() => /stopping/.test(output.stdout), { timeoutMs: DEADLINE_MS, message: 'herald dev stopping' });
  expect(started.exitCode).toBeNull(); // still waiting for the stalled client
  started.kill('SIGTERM');
  expect(await exit()).toBe(143);
  expect(output.stderr).toMatch(/SIGTERM again while stopping: exiting now/);
});
