import { ConfigError } from '@herald/core';
import type { Logger } from '@herald/core/ports';
import type { ProductionConfig } from '@herald/core/config';
import { SharedBitmapError, SharedOnlineBitmap } from '@herald/shared-bitmap';

/** Maps the bitmap of this executor's host read-only, waiting for the host's presence agent to create it. */
export async function openHostBitmap(
  production: ProductionConfig,
  id: string,
  uinLimit: number,
  waitMs: number,
  logger: Logger,
) {
  const index = production.topology.presence.findIndex((p) => p.executors.includes(id));
  const agent = production.topology.presence[index]!;
  const deadline = Date.now() + waitMs;
  for (let waited = false; ; waited = true) {
    try {
      return SharedOnlineBitmap.openReader(agent.bitmapFile, uinLimit);
    } catch (error) {
      const missing = error instanceof SharedBitmapError && error.reason === 'NOT_FOUND';
      if (!missing)
        throw new ConfigError(
          `topology.presence[${index}].bitmapFile`,
          `cannot map ${agent.bitmapFile}: ${(error as Error).message}`,
        );
      if (Date.now() >= deadline)
        throw new ConfigError(
          `topology.presence[${index}].bitmapFile`,
          `${agent.bitmapFile} does not exist after ${waitMs} ms (executor.bitmapWaitMs): start presence agent ${agent.id} on this host`,
        );
      if (!waited)
        logger.info('waiting for the presence agent to create the online bitmap', {
          agent: agent.id,
          bitmapFile: agent.bitmapFile,
        });
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
