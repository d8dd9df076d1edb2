import { readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { syntheticAudience } from '@herald/audience';
import { encodeRecipientList } from '@herald/core/recipient-list';
import type { ListMeta, Task } from '@herald/core/task';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { bitmapGeneration } from '@herald/presence';
import { writeKeys } from '@herald/production';
import { SharedOnlineBitmap } from '@herald/shared-bitmap';
import { LevelConfirmedBatchLog } from '@herald/store-level';
import { authHeaders, makeTempDir, TEST_AUTH_OPTIONS, waitFor, type TempDir } from '@herald/testing';

/**
 * Every file and directory Herald leaves on disk is its user's only
 * (docs/security.md): a broadcast on the embedded profile (lists, filtered
 * lists, delivery files, offline stores, the task store...), an executor's
 * confirmed-batch log, CURVE keys and the online bitmap, all made under a
 * permissive umask (0022) so only the modes Herald sets itself count.
 * LevelDB's own files follow the umask (herald sets 0077): they are checked
 * to sit in a 0700 directory.
 */
jest.setTimeout(120_000);

describe('file modes', () => {
  let dir: TempDir;
  let cluster: EmbeddedCluster | undefined;
  let umask: number;

  beforeAll(async () => {
    umask = process.umask(0o022);
    dir = await makeTempDir('herald-modes-');
  });

  afterAll(async () => {
    await cluster?.stop();
    process.umask(umask);
    await dir?.remove();
  });

  /** Every entry under `root` with its mode bits; LevelDB directories are those holding a CURRENT file. */
  async function walk(root: string): Promise<{ path: string; dir: boolean; mode: number; inLevelDb: boolean }[]> {
    const out: { path: string; dir: boolean; mode: number; inLevelDb: boolean }[] = [];
    const visit = async (at: string): Promise<void> => {
      const entries = await readdir(at, { withFileTypes: true });
      const level = entries.some((e) => e.name === 'CURRENT');
      for (const entry of entries) {
        const path = join(at, entry.name);
        const mode = (await stat(path)).mode & 0o777;
        out.push({
          path: relative(root, path),
          dir: entry.isDirectory(),
          mode,
          inLevelDb: level && !entry.isDirectory(),
        });
        if (entry.isDirectory()) await visit(path);
      }
    };
    await visit(root);
    return out;
  }

  it('leaves nothing readable by other users after a broadcast, with keys, a confirmed-batch log and the online bitmap', async () => {
    const data = join(dir.path, 'data');
    cluster = await startEmbeddedCluster({
      dataDir: data,
      uinSpaceBits: 20,
      http: { port: 0 },
      auth: TEST_AUTH_OPTIONS,
      dispatcher: { batchSize: 500, unitSize: 2000 },
      offline: { rangeBits: 8 },
    });
    const audience = syntheticAudience({ recipients: 5000, onlineFraction: 0.5, uinLimit: 2 ** 20, seed: 3 });
    for (const uin of audience.online) cluster.online.setOnline(uin, true);
    const api = async <T>(path: string, body: unknown, type = 'application/json') =>
      (await (
        await fetch(cluster!.url + path, {
          method: 'POST',
          headers: { 'content-type': type, ...authHeaders() },
          body: type === 'application/json' ? JSON.stringify(body) : (body as Buffer),
        })
      ).json()) as T;
    const list = await api<ListMeta>(
      '/api/v1/lists?accountId=acme',
      encodeRecipientList(audience.list),
      'application/octet-stream',
    );
    const task = await api<Task>('/api/v1/tasks', { accountId: 'acme', listId: list.id, content: { body: 'modes' } });
    await waitFor(async () => (await cluster!.store.getTask(task.id))?.state === 'COMPLETED', {
      timeoutMs: 60_000,
      intervalMs: 50,
      message: `task ${task.id} did not complete`,
    });
    await cluster.stop();
    cluster = undefined;

    const confirmed = await LevelConfirmedBatchLog.open(join(data, 'confirmed-executor-1'));
    await confirmed.record(task.id, 0, 0, { to: 500, delivered: 1, offline: 0 }, Date.now() + 60_000);
    await confirmed.close();
    await writeKeys(join(dir.path, 'keys'), ['scheduler-1']);
    const bitmapFile = join(dir.path, 'online.bitmap');
    SharedOnlineBitmap.openWriter(bitmapFile, 2 ** 20).close();
    await bitmapGeneration(bitmapFile, false);

    const entries = await walk(dir.path);
    const mode = (path: string) => entries.find((e) => e.path === path)?.mode;
    // The broadcast left what it should: lists, delivery files, offline and task stores.
    expect(entries.some((e) => /^data\/lists\/.+/.test(e.path) && !e.dir)).toBe(true);
    expect(entries.some((e) => /^data\/deliveries\/.*\.deliveries$/.test(e.path))).toBe(true);
    expect(entries.some((e) => /^data\/offline\//.test(e.path))).toBe(true);

    const shared = new Set(['online.bitmap', 'online.bitmap.generation']);
    const wrong = entries
      .filter((e) => (e.dir ? e.mode !== 0o700 : e.inLevelDb ? false : e.mode !== (shared.has(e.path) ? 0o640 : 0o600)))
      .map((e) => `${e.path} ${e.mode.toString(8)}`);
    expect(wrong).toEqual([]);
    // LevelDB's own files: whatever their mode, in a directory only the user can enter.
    for (const e of entries.filter((x) => x.inLevelDb))
      expect({ path: e.path, parent: mode(relative(dir.path, join(dir.path, e.path, '..'))) }).toEqual({
        path: e.path,
        parent: 0o700,
      });
    expect(mode('keys/scheduler-1.key')).toBe(0o600);
    expect(mode('keys/scheduler-1.pub')).toBe(0o600);
    expect(mode('online.bitmap')).toBe(0o640);
  });
});
