/**
 * @module @herald/coordinator-local
 *
 * The embedded profile's Coordinator: an in-process cluster whose
 * participants share unit checkpoints and leader elections, with the same
 * contract (and the same conformance suite) as @herald/coordinator-zookeeper.
 * Use one cluster per Herald process; `connect()` once per tier that needs a
 * coordinator.
 *
 * @example
 *   import { createLocalCoordinatorCluster } from '@herald/coordinator-local';
 *   const cluster = createLocalCoordinatorCluster();
 *   const coordinator = await cluster.connect();
 *   const election = await coordinator.elect('controller', 'controller-1');
 *   election.isLeader(); // true: the first candidate of the role leads
 *   await coordinator.putCheckpoint({ taskId: 7, unitNo: 0, epoch: 1, checkpoint: 4096, delivered: 4000, offline: 96, at: Date.now() });
 */
export { createLocalCoordinatorCluster } from './local-coordinator';
export type { LocalCoordinatorCluster, LocalCoordinatorClusterOptions } from './local-coordinator';
