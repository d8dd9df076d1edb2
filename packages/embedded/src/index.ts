/**
 * @module @herald/embedded
 *
 * The embedded profile: all tiers in one process over ZeroMQ inproc, LevelDB
 * stores, everything under one data directory. The quick start and the demo
 * run on it; the end-to-end tests drive it through its HTTP API.
 *
 * @example
 *   const cluster = await startEmbeddedCluster({ dataDir: '/tmp/herald', http: { port: 0 } });
 *   // POST cluster.url + '/api/v1/lists', then '/api/v1/tasks' ...
 *   await cluster.stop();
 */
export { startEmbeddedCluster } from './cluster';
export type { EmbeddedCluster, EmbeddedDeps } from './cluster';
