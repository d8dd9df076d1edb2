import { startEmbeddedCluster } from '@herald/embedded';
import { createJsonLogger } from '@herald/metrics';
import type { HeraldOptions } from '@herald/core';

/** Starts the embedded cluster and serves until SIGINT/SIGTERM. */
export async function runDev(options: HeraldOptions): Promise<void> {
  const cluster = await startEmbeddedCluster(options, { logger: createJsonLogger({ level: 'info' }) });
  process.stdout.write(`Herald (embedded) listening on ${cluster.url}; data in ${cluster.config.dataDir}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  process.stdout.write('stopping...\n');
  await cluster.stop();
}
