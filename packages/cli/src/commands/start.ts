import { compileConfig, type HeraldOptions } from '@herald/core';
import { createJsonLogger, createPromMeter } from '@herald/metrics';
import { startTier } from '@herald/production';

/** `herald start <tier> --id <id>`: one tier of the production profile in this process, until SIGINT/SIGTERM. */
export async function runStart(tier: string, id: string, options: HeraldOptions): Promise<void> {
  const config = compileConfig(options);
  const logger = createJsonLogger({ level: 'info', base: { tier, id } });
  const meter = createPromMeter({ defaultMetrics: true });
  const running = await startTier(tier, { config, id, logger, meter });
  process.stdout.write(`herald: ${running.description} started\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await running.stop();
  process.stdout.write(`herald: ${running.description} stopped\n`);
}
