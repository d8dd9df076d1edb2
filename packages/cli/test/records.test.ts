import { encodeRecipientList } from '@herald/core/recipient-list';
import type { Task } from '@herald/core/task';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { authHeaders, makeTempDir, TEST_AUTH_OPTIONS, TEST_TASK_OPTIONS, waitFor, type TempDir } from '@herald/testing';
import { herald } from './herald-process';
import { describePurge, taskIdOption } from '../src/commands/records';

/* `herald records purge` as a user runs it (herald-process.ts) against an embedded cluster. */

describe('herald records purge', () => {
  let dir: TempDir;
  let cluster: EmbeddedCluster;
  let task: Task;
  let scheduled: Task;

  const call = async <T>(method: string, path: string, body?: Uint8Array | object): Promise<T> => {
    const binary = body instanceof Uint8Array;
    const response = await fetch(cluster.url + path, {
      method,
      headers: { 'content-type': binary ? 'application/octet-stream' : 'application/json', ...authHeaders() },
      body: body === undefined ? undefined : binary ? body : JSON.stringify(body),
    });
    return (await response.json()) as T;
  };

  beforeAll(async () => {
    dir = await makeTempDir('herald-cli-records-');
    cluster = await startEmbeddedCluster({
      dataDir: dir.path,
      uinSpaceBits: 16,
      http: { port: 0 },
      auth: TEST_AUTH_OPTIONS,
      tasks: TEST_TASK_OPTIONS,
    });
    cluster.online.setOnline(10, true);
    const list = await call<{ id: string }>('POST', '/api/v1/lists?accountId=acme', encodeRecipientList([10, 20]));
    const content = { body: 'hi' };
    const created = await call<Task>('POST', '/api/v1/tasks', { accountId: 'acme', listId: list.id, content });
    await waitFor(async () => (await cluster.store.getTask(created.id))?.state === 'COMPLETED', { timeoutMs: 30_000 });
    task = (await cluster.store.getTask(created.id))!;
    // An hour ahead: SCHEDULED, not over.
    const sendAt = new Date(Date.now() + 3_600_000).toISOString();
    scheduled = await call<Task>('POST', '/api/v1/tasks', { accountId: 'acme', listId: list.id, content, sendAt });
  });

  afterAll(async () => {
    await cluster?.stop();
    await dir?.remove();
  });

  it("purges a finished task's records, says what it removed, and that nothing is left when run again", async () => {
    const recipient = (uin: number) =>
      call<{ fate: string; reason?: string }>('GET', `/api/v1/tasks/${task.id}/recipients/${uin}`);
    expect(await recipient(10)).toMatchObject({ fate: 'delivered_online' });
    const before = await call<Task>('GET', `/api/v1/tasks/${task.id}`);

    const run = await herald(['records', 'purge', '--task', String(task.id), '--api', cluster.url, '--json']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const purged = JSON.parse(run.stdout) as { taskId: number; batches: number; logins: number };
    expect(purged).toEqual({ taskId: task.id, batches: expect.any(Number), logins: 0 });
    expect(purged.batches).toBeGreaterThan(0);

    const again = await herald(['records', 'purge', '--task', String(task.id), '--api', cluster.url]);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`task ${task.id}: no delivery records left to purge\n`);

    // As docs/recipient-truth.md says: confirmed positions without a record are unknown; the task is as it was.
    for (const uin of [10, 20]) {
      const fate = await recipient(uin);
      expect(fate.fate).toBe('unknown');
      expect(fate.reason).toMatch(/confirmed this position without a delivery record/);
    }
    expect(await call<Task>('GET', `/api/v1/tasks/${task.id}`)).toEqual(before);
  });

  it("exits non-zero with the API's refusal for a task that is not over, or one that does not exist", async () => {
    const running = await herald(['records', 'purge', '--task', String(scheduled.id), '--api', cluster.url]);
    expect(running.code).not.toBe(0);
    expect(running.stderr).toMatch(new RegExp(`409 TASK_NOT_OVER: task ${scheduled.id} is SCHEDULED`));
    const missing = await herald(['records', 'purge', '--task', '999999', '--api', cluster.url]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/404 TASK_NOT_FOUND: task 999999 does not exist/);
  });

  it('refuses bad input naming the option, before asking the API', async () => {
    const refusals: [string[], RegExp][] = [
      [['--task', 'abc'], /--task must be a task id, a whole number from 1 \(got 'abc'\)/],
      [['--task', '1.5'], /--task must be a task id/],
      [['--task', '0'], /--task must be a task id/],
      [[], /required option '--task <id>' not specified/],
      [['--task', '1', '--all'], /unknown option '--all'/],
      [['--task', '1', 'extra'], /too many arguments/],
    ];
    // No API listens there: a refusal that reached it would say so instead.
    for (const [options, error] of refusals) {
      const run = await herald(['records', 'purge', ...options, '--api', 'http://127.0.0.1:9']);
      expect(run.code).not.toBe(0);
      expect(run.stderr).toMatch(error);
    }
    const tokenless = await herald(['records', 'purge', '--task', '1', '--api', cluster.url], { HERALD_TOKEN: '' });
    expect(tokenless.code).not.toBe(0);
    expect(tokenless.stderr).toMatch(/CONFIG_INVALID: config --token: give an API token/);
  });
});

describe('describePurge and taskIdOption', () => {
  it('says what was removed, in the singular where it is one', () => {
    expect(describePurge({ taskId: 4, batches: 1, logins: 2 })).toBe(
      'task 4: purged 1 batch record and 2 login outcomes',
    );
    expect(describePurge({ taskId: 4, batches: 0, logins: 1 })).toBe(
      'task 4: purged 0 batch records and 1 login outcome',
    );
  });

  it('takes a decimal whole number from 1 and nothing else', () => {
    expect(taskIdOption('42')).toBe(42);
    for (const bad of ['', '0', '-1', '01', '1e3', '0x10', ' 1', '9007199254740993'])
      expect(() => taskIdOption(bad)).toThrow(/--task must be a task id/);
  });
});
