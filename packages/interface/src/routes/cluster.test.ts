import { compileConfig } from '@herald/core/config';
import { HashRing } from '@herald/core/ring';
import { noopLogger, type TaskStore } from '@herald/core/ports';
import type { Task } from '@herald/core/task';
import type { FastifyInstance } from 'fastify';
import type { ListRepository } from '@herald/audience';
import type { ApiDeps, ClusterMembership } from '../api-deps';
import { openTestAccess, type TestAccess } from '../access/test-access.test-util';
import { createApiServer } from '../server';

let tokens: TestAccess;
beforeEach(async () => {
  tokens = await openTestAccess();
});
afterEach(() => tokens.close());

/** GET /api/v1/cluster over a store that only lists live tasks (all the route reads). */
function server(
  owners: (string | null)[],
  cluster?: () => ClusterMembership,
  hostLoads?: ApiDeps['hostLoads'],
): FastifyInstance {
  const store = {
    listLiveTasks: async () => owners.map((owner, i) => ({ id: i + 1, owner }) as Task),
  } as unknown as TaskStore;
  return createApiServer({
    config: compileConfig({ scheduler: { id: 'scheduler-1' } }),
    store,
    access: tokens.access,
    lists: {} as ListRepository,
    toScheduler: { send: async () => undefined, close: () => undefined },
    clock: { now: () => 10_000 },
    logger: noopLogger,
    blacklistIds: { global: 'g', forAccount: (a) => a },
    ...(cluster ? { cluster } : {}),
    ...(hostLoads ? { hostLoads } : {}),
  });
}

/** Over a real socket: fastify's inject pulls in an ESM-only dependency jest cannot load. */
async function get(app: FastifyInstance): Promise<Record<string, unknown> & { members: unknown[] }> {
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    return (await (
      await fetch(`${url}/api/v1/cluster`, { headers: { authorization: `Bearer ${tokens.adminToken}` } })
    ).json()) as Record<string, unknown> & { members: unknown[] };
  } finally {
    await app.close();
  }
}

describe('GET /api/v1/cluster', () => {
  it('shows the one scheduler of the embedded profile owning the whole ring and every live task', async () => {
    const app = server(['scheduler-1', 'scheduler-1', null]);
    const body = await get(app);
    expect(body).toEqual({
      apta: false,
      ring: ['scheduler-1'],
      members: [{ id: 'scheduler-1', state: 'WORKING', takesWork: true, ringShare: 1, liveTasks: 2 }],
      unownedLiveTasks: 1,
    });
  });

  it('shows each APTA member with its state, ring share, live tasks and when it was last heard', async () => {
    const ring = new HashRing(['scheduler-1', 'scheduler-2']);
    const app = server(['scheduler-2', 'scheduler-3', 'scheduler-2'], () => ({
      apta: true,
      self: { id: 'interface-1', state: 'WORKING' },
      ring,
      members: [
        { id: 'interface-1', state: 'WORKING', takesWork: false },
        { id: 'scheduler-1', state: 'WORKING', takesWork: true, lastHeardAt: 9_900 },
        { id: 'scheduler-2', state: 'SILENCE', takesWork: true, lastHeardAt: 9_950 },
      ],
    }));
    const body = await get(app);
    const shares = ring.shares();
    expect(body.self).toEqual({ id: 'interface-1', state: 'WORKING' });
    expect(body.ring).toEqual(['scheduler-1', 'scheduler-2']);
    expect(body.members).toEqual([
      { id: 'interface-1', state: 'WORKING', takesWork: false, ringShare: 0, liveTasks: 0 },
      {
        id: 'scheduler-1',
        state: 'WORKING',
        takesWork: true,
        ringShare: shares.get('scheduler-1'),
        liveTasks: 0,
        lastHeardAgoMs: 100,
      },
      {
        id: 'scheduler-2',
        state: 'SILENCE',
        takesWork: true,
        ringShare: shares.get('scheduler-2'),
        liveTasks: 2,
        lastHeardAgoMs: 50,
      },
      // An owner the membership does not know any more still shows, with its tasks.
      { id: 'scheduler-3', state: 'UNKNOWN', takesWork: true, ringShare: 0, liveTasks: 1 },
    ]);
    expect(body.unownedLiveTasks).toBe(0);
  });

  it("lists each executor's last load report and its age when a dispatcher runs in the process, by executor id", async () => {
    const report = (executorId: string) => ({
      executorId,
      sentAt: 1,
      cpuCores: 2,
      cpuBusyPermille: 300,
      memTotalBytes: 100,
      memAvailableBytes: 40,
      nicCapacityBytesPerSecond: 1000,
      nicBytesPerSecond: 10,
      senderSlots: 4,
      senderSlotsFree: 3,
    });
    const app = server(['scheduler-1'], undefined, () => [
      { report: report('executor-2'), ageMs: 4000 },
      { report: report('executor-1'), ageMs: 250 },
    ]);
    const body = await get(app);
    expect(body.hosts).toEqual([
      { ...report('executor-1'), ageMs: 250 },
      { ...report('executor-2'), ageMs: 4000 },
    ]);
    expect('hosts' in (await get(server(['scheduler-1'])))).toBe(false);
  });
});
