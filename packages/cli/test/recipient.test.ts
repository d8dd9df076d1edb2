import { encodeRecipientList } from '@herald/core/recipient-list';
import type { Task } from '@herald/core/task';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { authHeaders, makeTempDir, TEST_AUTH_OPTIONS, TEST_TASK_OPTIONS, waitFor, type TempDir } from '@herald/testing';
import { herald } from './herald-process';
import { describeFate } from '../src/commands/recipient';
import { describeHistory } from '../src/commands/recipient-history';

/* `herald recipient` as a user runs it (herald-process.ts) against an embedded cluster. */

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

  it('lists the broadcasts of an account without --task, newest first', async () => {
    const history = await herald(['recipient', '20', '--account', 'acme', '--api', cluster.url]);
    expect(history.stderr).toBe('');
    expect(history.code).toBe(0);
    const lines = history.stdout.split('\n');
    expect(lines[0]).toMatch(/^uin 20, account acme, tasks created \S+Z to \S+Z:$/);
    expect(lines[1]).toMatch(
      new RegExp(`^  \\S+Z task ${task.id} \\(COMPLETED\\): queued offline at \\S+Z by executor-1, then waiting`),
    );
    expect(lines.slice(2)).toEqual(['']);
    const json = await herald(['recipient', '30', '--account', 'acme', '--api', cluster.url, '--json']);
    expect(JSON.parse(json.stdout)).toEqual({ uin: 30, accountId: 'acme', entries: [], nextCursor: null });
  });

  it("refuses bad history input with a typed error naming the option, or the API's", async () => {
    const refusals: [string[], RegExp][] = [
      [[], /VALIDATION_FAILED: give --account <id>/],
      [
        ['--account', 'acme', '--from', '2026-13-01T00:00:00Z'],
        /VALIDATION_FAILED: --from "2026-13-01T00:00:00Z": there is no month 13/,
      ],
      [['--account', 'acme', '--to', 'yesterday'], /VALIDATION_FAILED: --to "yesterday" is not an RFC 3339 date-time/],
      [['--task', String(task.id), '--from', '2026-01-01T00:00:00Z'], /--from lists a history: give it without --task/],
      [
        ['--account', 'acme', '--from', '2026-06-02T00:00:00Z', '--to', '2026-06-01T00:00:00Z'],
        /400 VALIDATION_FAILED: from .* is after to/,
      ],
      [['--account', 'acme', '--cursor', '7-1'], /400 VALIDATION_FAILED: cursor '7-1' is of uin 7, not uin 20/],
    ];
    for (const [options, error] of refusals) {
      const run = await herald(['recipient', '20', ...options, '--api', cluster.url]);
      expect(run.code).not.toBe(0);
      expect(run.stderr).toMatch(error);
    }
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
    expect(
      describeFate({ taskId: 4, uin: 9, position: 7, fate: 'rejected', at, executor: 'e1', reason: 'unregistered' }),
    ).toBe(
      'task 4, uin 9: rejected by the push channel (unregistered) at 2026-01-02T03:04:05.000Z via e1 (position 7 of the filtered list)',
    );
    expect(describeFate({ taskId: 4, uin: 9, fate: 'unknown', reason: 'host B unreachable' })).toBe(
      'task 4, uin 9: unknown: host B unreachable',
    );
  });
});

describe('describeHistory', () => {
  const window = { uin: 9, accountId: 'acme', from: '2026-01-01T00:00:00.000Z', to: '2026-01-31T00:00:00.000Z' };
  it('says where to go on when the window is not read through, and when nothing reached the uin', () => {
    const entry = {
      taskId: 4,
      title: 'Sale',
      createdAt: Date.UTC(2026, 0, 2),
      state: 'COMPLETED',
      uin: 9,
      fate: 'removed',
      link: 'over_frequency',
    } as const;
    expect(describeHistory(window, { entries: [entry], nextCursor: '9-4' })).toBe(
      'uin 9, account acme, tasks created 2026-01-01T00:00:00.000Z to 2026-01-31T00:00:00.000Z:\n' +
        '  2026-01-02T00:00:00.000Z task 4 "Sale" (COMPLETED): removed by the filter chain: over_frequency\n' +
        'more: run again with --cursor 9-4\n',
    );
    expect(describeHistory(window, { entries: [], nextCursor: null })).toMatch(
      /no broadcast of this account reached this uin\n$/,
    );
  });
});
