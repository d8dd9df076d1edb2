import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { encodeRecipientList } from '@herald/core/recipient-list';
import type { Task } from '@herald/core/task';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import {
  authHeaders,
  makeTempDir,
  TEST_ADMIN_TOKEN,
  TEST_AUTH_OPTIONS,
  TEST_TASK_OPTIONS,
  waitFor,
  type TempDir,
} from '@herald/testing';
import { describeFate } from '../src/commands/recipient';

/** `herald recipient` as a user runs it (the compiled CLI, jest's global setup builds it) against an embedded cluster. */
const MAIN = join(__dirname, '..', 'dist', 'main.js');

function herald(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, HERALD_TOKEN: TEST_ADMIN_TOKEN };
    const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('herald recipient', () => {
  let dir: TempDir;
  let cluster: EmbeddedCluster;
  let task: Task;

  beforeAll(async () => {
    dir = await makeTempDir('herald-cli-recipient-');
    cluster = await startEmbeddedCluster({
      dataDir: dir.path,
      uinSpaceBits: 16,
      http: { port: 0 },
      auth: TEST_AUTH_OPTIONS,
      tasks: TEST_TASK_OPTIONS,
    });
    cluster.online.setOnline(10, true);
    const post = async <T>(path: string, body: Uint8Array | object): Promise<T> => {
      const binary = body instanceof Uint8Array;
      const response = await fetch(cluster.url + path, {
        method: 'POST',
        headers: { 'content-type': binary ? 'application/octet-stream' : 'application/json', ...authHeaders() },
        body: binary ? body : JSON.stringify(body),
      });
      return (await response.json()) as T;
    };
    const list = await post<{ id: string }>('/api/v1/lists?accountId=acme', encodeRecipientList([10, 20, 20]));
    const created = await post<Task>('/api/v1/tasks', { accountId: 'acme', listId: list.id, content: { body: 'hi' } });
    await waitFor(async () => (await cluster.store.getTask(created.id))?.state === 'COMPLETED', { timeoutMs: 30_000 });
    task = (await cluster.store.getTask(created.id))!;
  });

  afterAll(async () => {
    await cluster?.stop();
    await dir?.remove();
  });

  it('prints each fate as one sentence, and the JSON answer with --json', async () => {
    const online = await herald(['recipient', '10', '--task', String(task.id), '--api', cluster.url]);
    expect(online.stderr).toBe('');
    expect(online.code).toBe(0);
    expect(online.stdout).toMatch(
      new RegExp(
        `^task ${task.id}, uin 10: delivered online at \\S+Z by executor-1 \\(position 0 of the filtered list\\)\\n$`,
      ),
    );
    const offline = await herald(['recipient', '20', '--task', String(task.id), '--api', cluster.url, '--json']);
    expect(JSON.parse(offline.stdout)).toMatchObject({
      taskId: task.id,
      uin: 20,
      position: 1,
      duplicateCopiesRemoved: 1,
      fate: 'queued_offline',
      then: { outcome: 'waiting' },
    });
    const outside = await herald(['recipient', '30', '--task', String(task.id), '--api', cluster.url]);
    expect(outside.stdout).toBe(`task ${task.id}, uin 30: not in the audience\n`);
  });

  it("exits non-zero with the API's error for a uin outside the uin space", async () => {
    const run = await herald(['recipient', String(2 ** 16), '--task', String(task.id), '--api', cluster.url]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/400 VALIDATION_FAILED: uin '65536' is not an integer in \[0, 65536\)/);
  });
});

describe('describeFate', () => {
  const at = Date.UTC(2026, 0, 2, 3, 4, 5);
  it('says what became of an offline entry, and why a fate is unknown', () => {
    expect(
      describeFate({
        taskId: 4,
        uin: 9,
        fate: 'queued_offline',
        at,
        executor: 'e1',
        then: { outcome: 'dropped_at_login', at, why: 'over_frequency' },
      }),
    ).toBe(
      'task 4, uin 9: queued offline at 2026-01-02T03:04:05.000Z by e1, then dropped at login at 2026-01-02T03:04:05.000Z (over_frequency)',
    );
    expect(describeFate({ taskId: 4, uin: 9, fate: 'removed', link: 'blacklisted' })).toBe(
      'task 4, uin 9: removed by the filter chain: blacklisted',
    );
    expect(describeFate({ taskId: 4, uin: 9, fate: 'unknown', reason: 'host B unreachable' })).toBe(
      'task 4, uin 9: unknown: host B unreachable',
    );
  });
});
