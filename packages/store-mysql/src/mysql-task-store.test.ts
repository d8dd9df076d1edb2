import { ErrorCodes } from '@herald/core';
import type { Task } from '@herald/core/task';
import {
  FIXTURE_NOW as NOW,
  freePort,
  newTask,
  PrivateMariaDb,
  rejectsWithCode,
  taskStoreConformance,
} from '@herald/testing';
import type { RowDataPacket } from 'mysql2/promise';
import { migrate } from './migrate';
import { LIVE_STATES, LIVE_TASKS_SQL } from './live-checkpoint';
import { MySqlTaskStore } from './mysql-task-store';
import {
  createEmptyDatabase,
  dropDatabase,
  rawConnection,
  TEST_MYSQL_URL as URL_,
  uniqueDatabase,
  useSharedDatabases,
} from './test-databases';

const databases = useSharedDatabases();

taskStoreConformance('MySqlTaskStore', async () => {
  const lent = await databases.acquire();
  try {
    return { store: await MySqlTaskStore.open({ url: URL_, database: lent.name }), cleanup: lent.release };
  } catch (error) {
    await lent.release();
    throw error;
  }
});

/** A migrated database, an open store on it, and a raw connection for looking behind its back. */
function useMigratedStore() {
  const ctx = {} as {
    database: string;
    store: MySqlTaskStore;
    sql: (text: string, values?: unknown[]) => Promise<RowDataPacket[]>;
  };
  let raw: Awaited<ReturnType<typeof rawConnection>> | undefined;
  let lent: Awaited<ReturnType<typeof databases.acquire>> | undefined;
  beforeEach(async () => {
    lent = await databases.acquire();
    ctx.database = lent.name;
    ctx.store = await MySqlTaskStore.open({ url: URL_, database: ctx.database, poolSize: 4 });
    const conn = await rawConnection(ctx.database);
    raw = conn;
    ctx.sql = async (text, values) => (await conn.query<RowDataPacket[]>(text, values))[0];
  });
  afterEach(async () => {
    await ctx.store.close();
    await raw?.end();
    await lent?.release();
  });
  return ctx;
}

describe('MySqlTaskStore', () => {
  describe('the outbox is written by triggers', () => {
    const ctx = useMigratedStore();

    it('a raw UPDATE of tasks.state adds a task_events row; a raw UPDATE of anything else adds none', async () => {
      const task = await ctx.store.createTask(newTask(), NOW);
      await ctx.sql('UPDATE tasks SET state = ?, version = version + 1, updated_at = ? WHERE id = ?', [
        'QUEUED',
        12345,
        task.id,
      ]);
      await ctx.sql('UPDATE tasks SET owner = ?, version = version + 1, updated_at = ? WHERE id = ?', [
        'someone',
        12346,
        task.id,
      ]);
      const events = await ctx.store.readOutbox(0, 10);
      expect(events.map(({ id: _id, ...e }) => e)).toEqual([
        { taskId: task.id, from: null, to: 'CREATED', version: 1, at: NOW },
        { taskId: task.id, from: 'CREATED', to: 'QUEUED', version: 2, at: 12345 },
      ]);
    });

    it('a raw INSERT into tasks adds a creation event', async () => {
      await ctx.sql(
        `INSERT INTO tasks (account_id, list_id, content, content_crc, priority, send_at, expires_at, list_count, state, version, epoch, report, created_at, updated_at)
         VALUES ('a', 'l', '{"body":"b"}', 1, 'normal', 0, 0, 1, 'SCHEDULED', 4, 0, '{}', 777, 777)`,
      );
      const [row] = await ctx.sql('SELECT task_id, from_state, to_state, version, `at`, relayed_at FROM task_events');
      expect({ ...row }).toEqual({
        task_id: expect.any(Number),
        from_state: null,
        to_state: 'SCHEDULED',
        version: 4,
        at: 777,
        relayed_at: null,
      });
    });

    it('markRelayed stamps relayed_at and keeps the rows', async () => {
      const task = await ctx.store.createTask(newTask(), NOW);
      await ctx.store.transitionTask(task.id, { epoch: 0 }, 'enqueue', {}, NOW);
      const [first] = await ctx.store.readOutbox(0, 1);
      await ctx.store.markRelayed(first!.id);
      const rows = await ctx.sql('SELECT id, relayed_at IS NOT NULL AS relayed FROM task_events ORDER BY id');
      expect(rows.map((r) => [Number(r.id), Number(r.relayed)])).toEqual([
        [first!.id, 1],
        [first!.id + 1, 0],
      ]);
    });
  });

  describe('live-task checkpoint (FOQS)', () => {
    const ctx = useMigratedStore();
    const checkpoint = async () =>
      Number((await ctx.sql("SELECT value FROM store_checkpoints WHERE name = 'live_tasks'"))[0]!.value);

    async function make(n: number): Promise<Task[]> {
      const tasks: Task[] = [];
      for (let i = 0; i < n; i++) tasks.push(await ctx.store.createTask(newTask(), NOW));
      return tasks;
    }

    it('advances as the oldest tasks become terminal, and never past a live one', async () => {
      const t = await make(5);
      await ctx.store.listLiveTasks();
      expect(await checkpoint()).toBe(t[0]!.id);
      await ctx.store.transitionTask(t[0]!.id, { epoch: 0 }, 'cancel', {}, NOW);
      expect(await checkpoint()).toBe(t[1]!.id);
      await ctx.store.transitionTask(t[2]!.id, { epoch: 0 }, 'fail', {}, NOW);
      expect(await checkpoint()).toBe(t[1]!.id);
      await ctx.store.transitionTask(t[1]!.id, { epoch: 0 }, 'cancel', {}, NOW);
      expect(await checkpoint()).toBe(t[3]!.id);
      expect((await ctx.store.listLiveTasks()).map((x) => x.id)).toEqual([t[3]!.id, t[4]!.id]);
      await ctx.store.transitionTask(t[4]!.id, { epoch: 0 }, 'cancel', {}, NOW);
      await ctx.store.transitionTask(t[3]!.id, { epoch: 0 }, 'cancel', {}, NOW);
      expect(await checkpoint()).toBe(t[4]!.id + 1);
      expect(await ctx.store.listLiveTasks()).toEqual([]);
      const [later] = await make(1);
      expect((await ctx.store.listLiveTasks()).map((x) => x.id)).toEqual([later!.id]);
      expect(await checkpoint()).toBe(later!.id);
    });

    it('listLiveTasks reads only from the checkpoint up: a live task below it is not scanned', async () => {
      const t = await make(3);
      for (const task of t) await ctx.store.transitionTask(task.id, { epoch: 0 }, 'enqueue', {}, NOW);
      expect((await ctx.store.listReadyTasks(NOW)).map((x) => x.id)).toEqual(t.map((x) => x.id));
      // Behind the store's back: claim every task below t[2] is terminal. Both scans must trust it.
      await ctx.sql("UPDATE store_checkpoints SET value = ? WHERE name = 'live_tasks'", [t[2]!.id]);
      expect((await ctx.store.listLiveTasks()).map((x) => x.id)).toEqual([t[2]!.id]);
      expect((await ctx.store.listReadyTasks(NOW)).map((x) => x.id)).toEqual([t[2]!.id]);
    });

    it('the live query is a range scan with id bounded on both sides, below which history lies unread', async () => {
      // 500 finished tasks of history, then one live task.
      await ctx.sql(
        `INSERT INTO tasks (account_id, list_id, content, content_crc, priority, send_at, expires_at, list_count, state, version, epoch, report, created_at, updated_at)
         SELECT 'a', 'l', '{"body":"b"}', 1, 'normal', 0, 0, 1, 'COMPLETED', 1, 0, '{}', seq, seq FROM seq_1_to_500`,
      );
      const [live] = await make(1);
      expect((await ctx.store.listLiveTasks()).map((t) => t.id)).toEqual([live!.id]);
      expect(await checkpoint()).toBe(live!.id);
      await ctx.sql('ANALYZE TABLE tasks');
      const [plan] = await ctx.sql(`EXPLAIN FORMAT=JSON ${LIVE_TASKS_SQL}`, [live!.id, live!.id, ...LIVE_STATES]);
      const table = findTable(JSON.parse(String(plan!.EXPLAIN)));
      expect(table).toMatchObject({ table_name: 'tasks', access_type: 'range' });
      expect(table!.used_key_parts).toContain('id');
    });

    it('listReadyTasks: QUEUED, PREEMPTED and SCHEDULED whose send time has come, oldest first, at most limit', async () => {
      const due = await ctx.store.createTask(newTask({ sendAt: NOW - 1 }), NOW);
      const future = await ctx.store.createTask(newTask({ sendAt: NOW + 60_000 }), NOW);
      const queued = await ctx.store.createTask(newTask(), NOW);
      const preempted = await ctx.store.createTask(newTask(), NOW);
      const created = await ctx.store.createTask(newTask(), NOW);
      const done = await ctx.store.createTask(newTask(), NOW);
      const drive = async (t: Task, events: Parameters<MySqlTaskStore['transitionTask']>[2][]) => {
        for (const e of events) await ctx.store.transitionTask(t.id, { epoch: 0 }, e, {}, NOW);
      };
      await drive(due, ['schedule']);
      await drive(future, ['schedule']);
      await drive(queued, ['enqueue']);
      await drive(preempted, ['enqueue', 'admit', 'preprocessed', 'dispatched', 'preempt']);
      await drive(done, ['enqueue', 'cancel']);
      expect((await ctx.store.listReadyTasks(NOW)).map((t) => t.id)).toEqual([due.id, queued.id, preempted.id]);
      expect((await ctx.store.listReadyTasks(NOW + 60_000)).map((t) => t.id)).toEqual([
        due.id,
        future.id,
        queued.id,
        preempted.id,
      ]);
      expect((await ctx.store.listReadyTasks(NOW, 2)).map((t) => t.id)).toEqual([due.id, queued.id]);
      expect(created.state).toBe('CREATED');
      await rejectsWithCode(ctx.store.listReadyTasks(NOW, 0), ErrorCodes.VALIDATION_FAILED);
      await rejectsWithCode(ctx.store.listReadyTasks(NOW + 0.5), ErrorCodes.VALIDATION_FAILED);
    });
  });

  describe('open', () => {
    it('fails UNAVAILABLE (retriable) naming mysql.url when nothing listens there', async () => {
      const port = await freePort();
      const error = await rejectsWithCode(
        MySqlTaskStore.open({ url: `mysql://root@127.0.0.1:${port}`, database: 'herald' }),
        ErrorCodes.UNAVAILABLE,
      );
      expect(error.retriable).toBe(true);
      expect(error.details).toMatchObject({ setting: 'mysql.url' });
      expect(error.message).toMatch(/^config mysql\.url: cannot reach mysql:\/\/127\.0\.0\.1:\d+/);
    });

    it('fails CONFIG_INVALID naming mysql.url on bad credentials, without printing the password', async () => {
      const url = new URL(URL_);
      url.password = 'not-the-password';
      const error = await rejectsWithCode(
        MySqlTaskStore.open({ url: url.toString(), database: 'herald' }),
        ErrorCodes.CONFIG_INVALID,
      );
      expect(error.details).toMatchObject({ setting: 'mysql.url' });
      expect(error.message).toMatch(/^config mysql\.url: access denied/);
      expect(error.message).not.toContain('not-the-password');
      expect(error.retriable).toBe(false);
    });

    it('fails CONFIG_INVALID naming mysql.database when the database does not exist', async () => {
      const database = uniqueDatabase();
      const error = await rejectsWithCode(MySqlTaskStore.open({ url: URL_, database }), ErrorCodes.CONFIG_INVALID);
      expect(error.details).toMatchObject({ setting: 'mysql.database' });
      expect(error.message).toContain('run herald migrate');
      expect(error.message.split('\n')).toHaveLength(1);
    });

    it('fails CONFIG_INVALID naming mysql.database when the database is not migrated, or only partly', async () => {
      const database = uniqueDatabase();
      await createEmptyDatabase(database);
      try {
        const empty = await rejectsWithCode(MySqlTaskStore.open({ url: URL_, database }), ErrorCodes.CONFIG_INVALID);
        expect(empty.details).toMatchObject({ setting: 'mysql.database' });
        expect(empty.message).toMatch(/not migrated.*run herald migrate$/);
        await migrate(URL_, { database });
        const conn = await rawConnection(database);
        await conn.query("DELETE FROM schema_migrations WHERE name = '003_live_task_checkpoint.sql'");
        await conn.end();
        const partial = await rejectsWithCode(MySqlTaskStore.open({ url: URL_, database }), ErrorCodes.CONFIG_INVALID);
        expect(partial.message).toMatch(/lacks migrations 003_live_task_checkpoint\.sql: run herald migrate$/);
        await migrate(URL_, { database });
        const store = await MySqlTaskStore.open({ url: URL_, database });
        await store.close();
      } finally {
        await dropDatabase(database);
      }
    });

    it('refuses bad settings with CONFIG_INVALID naming each', async () => {
      const cases: [Parameters<typeof MySqlTaskStore.open>[0], string][] = [
        [{ url: 'http://x', database: 'herald' }, 'mysql.url'],
        [{ url: 'not a url', database: 'herald' }, 'mysql.url'],
        [{ url: URL_, database: 'herald; DROP DATABASE x' }, 'mysql.database'],
        [{ url: URL_, database: '' }, 'mysql.database'],
        [{ url: URL_, database: 'herald', poolSize: 0 }, 'mysql.poolSize'],
      ];
      for (const [options, setting] of cases) {
        const error = await rejectsWithCode(MySqlTaskStore.open(options), ErrorCodes.CONFIG_INVALID);
        expect(error.details).toMatchObject({ setting });
      }
    });
  });

  describe('lifecycle and validation', () => {
    const ctx = useMigratedStore();

    it('fails every call after close with STORE_CLOSED; a second close is a no-op', async () => {
      const task = await ctx.store.createTask(newTask(), 1);
      await ctx.store.close();
      await ctx.store.close();
      const fence = { epoch: 0 };
      const calls: Promise<unknown>[] = [
        ctx.store.createTask(newTask(), 1),
        ctx.store.getTask(task.id),
        ctx.store.listTasks(),
        ctx.store.listLiveTasks(),
        ctx.store.listReadyTasks(1),
        ctx.store.listTasksByContent('acct-1', 1),
        ctx.store.claimTask(task.id, 'x', 1),
        ctx.store.transitionTask(task.id, fence, 'enqueue', {}, 1),
        ctx.store.updateTask(task.id, fence, {}, 1),
        ctx.store.putUnits(task.id, fence, [], 1),
        ctx.store.listUnits(task.id),
        ctx.store.transitionUnit(task.id, 0, fence, 'assign', 1),
        ctx.store.checkpointUnit(task.id, 0, fence, { from: 0, to: 1, delivered: 1, offline: 0 }, 1),
        ctx.store.readOutbox(0, 1),
        ctx.store.markRelayed(1),
        ctx.store.putList({
          id: 'l',
          accountId: 'a',
          count: 0,
          checksum: 0,
          sorted: true,
          unique: true,
          bytes: 32,
          createdAt: 1,
        }),
        ctx.store.getList('l'),
      ];
      for (const call of calls) await rejectsWithCode(call, ErrorCodes.STORE_CLOSED);
    });

    it('lets calls already in flight finish before closing', async () => {
      const creates = Array.from({ length: 10 }, (_, i) => ctx.store.createTask(newTask({ listCount: i }), 1));
      const closed = ctx.store.close();
      const tasks = await Promise.all(creates);
      await closed;
      const reopened = await MySqlTaskStore.open({ url: URL_, database: ctx.database });
      expect((await reopened.listTasks()).tasks).toEqual(tasks.sort((a, b) => a.id - b.id));
      await reopened.close();
    });

    it('refuses what the schema cannot hold exactly: fractional times, ids over 255 characters', async () => {
      await rejectsWithCode(ctx.store.createTask(newTask({ sendAt: NOW + 0.5 }), NOW), ErrorCodes.VALIDATION_FAILED);
      await rejectsWithCode(ctx.store.createTask(newTask(), NOW + 0.5), ErrorCodes.VALIDATION_FAILED);
      await rejectsWithCode(
        ctx.store.createTask(newTask({ accountId: 'a'.repeat(256) }), NOW),
        ErrorCodes.VALIDATION_FAILED,
      );
      const longest = await ctx.store.createTask(newTask({ accountId: '🚀'.repeat(255) }), NOW);
      expect((await ctx.store.getTask(longest.id))!.accountId).toBe('🚀'.repeat(255));
      await rejectsWithCode(ctx.store.claimTask(longest.id, 'o'.repeat(256), NOW), ErrorCodes.VALIDATION_FAILED);
      await rejectsWithCode(
        ctx.store.putList({
          id: 'l',
          accountId: 'a',
          count: -1,
          checksum: 0,
          sorted: true,
          unique: true,
          bytes: 32,
          createdAt: 1,
        }),
        ErrorCodes.VALIDATION_FAILED,
      );
      expect((await ctx.store.listTasks()).tasks.map((t) => t.id)).toEqual([longest.id]);
    });
  });

  describe('when the server goes away', () => {
    let db: PrivateMariaDb;
    const database = 'herald';
    beforeAll(async () => {
      db = await PrivateMariaDb.start();
      await migrate(db.url, { database });
    });
    afterAll(async () => {
      await db?.destroy();
    });

    it('calls fail UNAVAILABLE and retriable, and succeed again once it is back', async () => {
      const store = await MySqlTaskStore.open({ url: db.url, database, poolSize: 2 });
      try {
        const task = await store.createTask(newTask(), NOW);
        await db.stop();
        for (const call of [
          store.getTask(task.id),
          store.createTask(newTask(), NOW),
          store.transitionTask(task.id, { epoch: 0 }, 'enqueue', {}, NOW),
        ]) {
          const error = await rejectsWithCode(call, ErrorCodes.UNAVAILABLE);
          expect(error.retriable).toBe(true);
        }
        await db.restart();
        expect(await store.transitionTask(task.id, { epoch: 0 }, 'enqueue', {}, NOW)).toMatchObject({
          state: 'QUEUED',
          version: 2,
        });
      } finally {
        await store.close();
      }
    });
  });
});

/** The first `table` object anywhere in an EXPLAIN FORMAT=JSON document. */
function findTable(
  node: unknown,
): { table_name?: string; access_type?: string; used_key_parts?: string[] } | undefined {
  if (node === null || typeof node !== 'object') return undefined;
  const record = node as Record<string, unknown>;
  if (
    record.table !== undefined &&
    typeof record.table === 'object' &&
    (record.table as Record<string, unknown>).table_name !== undefined
  ) {
    return record.table as { table_name?: string; access_type?: string; used_key_parts?: string[] };
  }
  for (const value of Object.values(record)) {
    const found = findTable(value);
    if (found !== undefined) return found;
  }
  return undefined;
}
