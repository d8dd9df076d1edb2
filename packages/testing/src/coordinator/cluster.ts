import type { Coordinator } from '@herald/core/ports';

/**
 * One backing coordination namespace (a ZooKeeper root, an in-process
 * cluster) that several participants join. Each `connect()` is a separate
 * participant, as another process would be: its own session, its own
 * ephemeral election nodes, the same checkpoints.
 */
export interface CoordinatorCluster {
  connect(): Promise<Coordinator>;
  /** Removes whatever the cluster created (the suite closes every participant first). */
  cleanup(): Promise<void>;
}

/** Opens a fresh, empty namespace; called once per test. */
export type CoordinatorClusterFactory = () => Promise<CoordinatorCluster>;

/**
 * Registers beforeEach/afterEach hooks that open a fresh cluster per test and
 * returns `connect`, which opens a participant that the afterEach hook closes
 * (closing twice must be harmless, so tests may close participants themselves).
 */
export function useFreshCluster(open: CoordinatorClusterFactory): () => Promise<Coordinator> {
  let cluster: CoordinatorCluster | undefined;
  let participants: Coordinator[] = [];
  beforeEach(async () => {
    cluster = await open();
  });
  afterEach(async () => {
    const opened = cluster;
    const toClose = participants;
    cluster = undefined;
    participants = [];
    if (opened === undefined) return;
    try {
      await Promise.all(toClose.map((c) => c.close()));
    } finally {
      await opened.cleanup();
    }
  });
  return async () => {
    if (cluster === undefined) throw new Error('conformance: no cluster is open (used outside a test?)');
    const coordinator = await cluster.connect();
    participants.push(coordinator);
    return coordinator;
  };
}
