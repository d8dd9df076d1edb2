/**
 * @module @herald/coordinator-zookeeper
 *
 * The production Coordinator on ZooKeeper (node-zookeeper-client): unit
 * checkpoints as versioned znodes written by compare-and-set, and leader
 * election by ephemeral sequential znodes (each candidate watches only its
 * predecessor). The adapter owns its session: a disconnection makes calls
 * fail with UNAVAILABLE (retriable) until it reconnects, and an expired
 * session is replaced by a new one, its candidates rejoining at the back of
 * their lines; the process never exits over it. Passes the same conformance
 * suite as @herald/coordinator-local.
 *
 * @example
 *   import { ZooKeeperCoordinator } from '@herald/coordinator-zookeeper';
 *   const coordinator = await ZooKeeperCoordinator.connect({
 *     connectionString: 'zk1:2181,zk2:2181,zk3:2181',
 *     root: '/herald/prod',
 *     sessionTimeoutMs: 10_000,
 *     connectTimeoutMs: 10_000,
 *   });
 *   const election = await coordinator.elect('controller', 'controller-1');
 *   election.onChange((leader) => console.log(leader ? 'leading' : 'following'));
 *   await coordinator.putCheckpoint({ taskId: 7, unitNo: 0, epoch: 3, checkpoint: 4096, delivered: 4000, offline: 96, at: Date.now() });
 */
export { ZooKeeperCoordinator } from './zookeeper-coordinator';
export { compileZooKeeperOptions } from './options';
export type { ZooKeeperCoordinatorOptions, CompiledZooKeeperOptions } from './options';
export type { ZooKeeperAuthOptions } from './acl';
