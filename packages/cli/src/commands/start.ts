import { compileConfig, type HeraldOptions } from '@herald/core';
import { createJsonLogger, createPromMeter } from '@herald/metrics';
import { startManagementServer, startTier } from '@herald/production';

/**
 * `herald start <tier> --id <id>`: one tier of the production profile in this
 * process, until SIGINT/SIGTERM (stop at once: work resumes from checkpoints)
 * or a drain through its management endpoint (hand off, then exit).
 */
export async function runStart(tier: string, id: string, options: HeraldOptions, managementAddress?: string): Promise<void> {
  const config = compileConfig(options);
  const logger = createJsonLogger({ level: 'info', base: { tier, id } });
  const meter = createPromMeter({ defaultMetrics: true });
  const running = await startTier(tier, { config, id, logger, meter });
  const address = managementAddress ?? config.management.endpoints[id];
  const management =
    address === undefined
      ? undefined
      : await startManagementServer(
          { id, tier, status: () => running.status(), drain: () => running.drain(), metrics: () => meter.exposition() },
          { address, faults: config.management.faults, logger },
        ).catch(async (error: unknown) => {
          await running.stop();
          throw error;
        });
  process.stdout.write(`herald: ${running.description} started${management ? ` (management on ${management.address})` : ''}\n`);
  const how = await new Promise<'signal' | 'drain'>((resolve) => {
    process.once('SIGINT', () => resolve('signal'));
    process.once('SIGTERM', () => resolve('signal'));
    void management?.drained.then(() => resolve('drain'));
  });
  if (how === 'signal') await running.stop();
  await management?.close();
  process.stdout.write(`herald: ${running.description} ${how === 'drain' ? 'drained and ' : ''}stopped\n`);
}
