import { ConfigError } from '@herald/core';
import { allocateTasks } from '@herald/core/apta';
import { HashRing } from '@herald/core/ring';
import type { HeraldConfig, ProductionConfig } from '@herald/core/config';
import type { Logger, Meter } from '@herald/core/ports';
import type { ClusterMembership } from '@herald/interface';
import { startMembership, type Membership } from '@herald/membership';
import { readKeyPair, readPublicKey } from './keys';

/** Where the ring comes from, for one production process. */
export interface ClusterRing {
  /** The ring to route by (and, for a scheduler, to own by). */
  current(): HashRing;
  /**
   * Whether this process may own by `current()` now (a static ring; APTA WORKING; or the interim ring in the
   * SILENCE after a member's process died, which moves only the dead member's arc): a scheduler adopts tasks only then.
   */
  isCurrent(): boolean;
  /** Called after every change of `current()`. */
  onChange(listener: (ring: HashRing) => void): void;
  /** For the management endpoint: the ring's members, and with APTA this process's state and its view of every member. */
  status(): { apta: boolean; ring: readonly string[]; state?: string; members?: unknown };
  /** Every member as this process knows it, for the API's cluster view. */
  membership(): ClusterMembership;
  /** Leaves the membership (stops sending Hellos; peers mark this process OFFLINE). Idempotent; `current()` keeps the last ring. */
  close(): Promise<void>;
}

/**
 * Every configured scheduler on one ring: the ring without APTA, and with APTA the ring a
 * follower routes by until its first WORKING. With APTA it has the allocation's vnode count,
 * so a message routed before that first ring reaches the owner the agreed ring will name.
 */
export function staticSchedulerRing(production: ProductionConfig): HashRing {
  const ids = production.topology.schedulers.map((s) => s.id);
  return production.apta === null ? new HashRing(ids) : allocateTasks(ids, production.apta.virtualNodes);
}

/**
 * The ring of schedulers as this process sees it. Without APTA (no
 * membership endpoints in the topology) it is the static list of schedulers.
 * With APTA it is the ring the membership last agreed on in WORKING, less
 * any member whose process died since (its arc goes to its successors at
 * once: the interim ring; the rest waits for the next agreed ring):
 *   - a scheduler owns nothing until its first WORKING (the empty ring), and
 *     keeps its last ring while SILENCE or OFFLINE (fencing protects the store);
 *     it adopts only while WORKING or on an interim ring;
 *   - every other process (interface, dispatcher, executor: `takesWork` false)
 *     routes by the static list until its first WORKING, then by the last
 *     agreed ring.
 */
export async function startClusterRing(
  config: HeraldConfig,
  id: string,
  role: 'scheduler' | 'follower',
  logger: Logger,
  meter: Meter,
): Promise<ClusterRing> {
  const production = config.production!;
  const everyScheduler = staticSchedulerRing(production);
  const listeners: ((ring: HashRing) => void)[] = [];
  if (production.apta === null) {
    const membership = (): ClusterMembership => ({
      apta: false,
      self: undefined,
      ring: everyScheduler,
      members: everyScheduler.members.map((m) => ({ id: m, state: 'WORKING', takesWork: true })),
    });
    return {
      current: () => everyScheduler,
      isCurrent: () => true,
      onChange: (l) => void listeners.push(l),
      status: () => ({ apta: false, ring: everyScheduler.members }),
      membership,
      close: async () => undefined,
    };
  }

  const { schedulers, dispatchers, executors, interfaces } = production.topology;
  const members = [...schedulers, ...dispatchers, ...executors, ...interfaces].map((m) => ({
    id: m.id,
    endpoint: m.membership!,
  }));
  const me = members.find((m) => m.id === id);
  if (me === undefined)
    throw new ConfigError(
      'topology.interfaces',
      `has no member with id ${JSON.stringify(id)}: with APTA every interface needs an entry with its membership endpoint`,
    );
  const keysDir = production.curve.keysDir;
  const keys = await readKeyPair(keysDir, id);
  const peers = await Promise.all(
    members
      .filter((m) => m.id !== id)
      .map(async (m) => ({ ...m, serverPublicKey: await readPublicKey(keysDir, m.id) })),
  );

  let ring = role === 'scheduler' ? new HashRing([]) : everyScheduler;
  const membership: Membership = await startMembership({
    id,
    takesWork: role === 'scheduler',
    endpoint: me.endpoint,
    peers,
    curve: { publicKey: keys.publicKey, secretKey: keys.secretKey },
    apta: production.apta,
    logger,
    meter,
  });
  membership.onChange((change) => {
    if (change.type !== 'ring' || change.ring === undefined) return;
    ring = change.ring;
    logger.info('ring of schedulers changed', { members: ring.members, interim: change.interim });
    for (const listener of listeners) listener(ring);
  });
  let closing: Promise<void> | undefined;
  return {
    current: () => ring,
    isCurrent: () => closing === undefined && membership.ring() !== undefined,
    onChange: (listener) => void listeners.push(listener),
    status: () => ({
      apta: true,
      ring: ring.members,
      state: closing ? 'LEFT' : membership.state,
      members: membership.view(),
    }),
    membership: () => {
      const view = membership.view();
      return {
        apta: true,
        self: { id, state: membership.state },
        ring,
        members: [
          { id, state: membership.state, takesWork: role === 'scheduler' },
          ...view.peers.map((p) => ({ id: p.id, state: p.state, takesWork: p.takesWork, lastHeardAt: p.lastHeardAt })),
        ],
      };
    },
    close: () => (closing ??= membership.close()),
  };
}
