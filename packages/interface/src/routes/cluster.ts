import { HashRing } from '@herald/core/ring';
import type { FastifyInstance } from 'fastify';
import type { ApiDeps, ClusterMembership } from '../api-deps';
import { assertAdmin } from '../access/request-access';

/** One member as GET /api/v1/cluster shows it. */
interface MemberRow {
  id: string;
  /** APTA state as the answering process last heard it (WORKING for every scheduler of a static ring). */
  state: string;
  takesWork: boolean;
  /** Its share of the allocation ring (0..1): the fraction of tasks it can expect to own. 0 when not on the ring. */
  ringShare: number;
  /** Live (non-terminal) tasks whose stored owner it is. */
  liveTasks: number;
  /** Milliseconds since the answering process last heard of it; absent for itself and on a static ring. */
  lastHeardAgoMs?: number;
}

/**
 * The cluster as this interface process sees it: each member, its APTA state,
 * its share of the ring and the live tasks it owns in the store. Owners come
 * from the task store, so a task being taken over shows under whoever holds
 * its latest claim. Admin only (403 FORBIDDEN for an operator): its counts
 * of live tasks cover every account. Where a dispatcher runs in the same
 * process (embedded), `hosts` lists each executor's last load report and its age.
 */
export function clusterRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const membership = deps.cluster ?? (() => staticMembership(deps.config.scheduler.id));
  app.get('/api/v1/cluster', async (request) => {
    assertAdmin(request);
    const view = membership();
    const shares = view.ring.shares();
    const owned = new Map<string, number>();
    let unowned = 0;
    for (const task of await deps.store.listLiveTasks()) {
      if (task.owner === null) unowned++;
      else owned.set(task.owner, (owned.get(task.owner) ?? 0) + 1);
    }
    const now = deps.clock.now();
    const members: MemberRow[] = view.members.map((m) => ({
      id: m.id,
      state: m.state,
      takesWork: m.takesWork,
      ringShare: shares.get(m.id) ?? 0,
      liveTasks: owned.get(m.id) ?? 0,
      ...(m.lastHeardAt === undefined ? {} : { lastHeardAgoMs: Math.max(0, now - m.lastHeardAt) }),
    }));
    // An owner that is no member any more (e.g. removed from the configuration) still holds tasks: show it.
    for (const [id, count] of owned)
      if (!members.some((m) => m.id === id))
        members.push({ id, state: 'UNKNOWN', takesWork: true, ringShare: 0, liveTasks: count });
    members.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    // The executors' load as the dispatcher plans on it (embedded only: see ApiDeps.hostLoads).
    const hosts = deps
      .hostLoads?.()
      .map(({ report, ageMs }) => ({ ...report, ageMs }))
      .sort((a, b) => (a.executorId < b.executorId ? -1 : a.executorId > b.executorId ? 1 : 0));
    return {
      apta: view.apta,
      self: view.self,
      ring: view.ring.members,
      members,
      unownedLiveTasks: unowned,
      ...(hosts === undefined ? {} : { hosts }),
    };
  });
}

/** The embedded profile: one scheduler, always working, owning the whole ring. */
function staticMembership(schedulerId: string): ClusterMembership {
  return {
    apta: false,
    self: undefined,
    ring: new HashRing([schedulerId]),
    members: [{ id: schedulerId, state: 'WORKING', takesWork: true }],
  };
}
