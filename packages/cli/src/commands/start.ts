import { compileConfig, type HeraldOptions } from '@herald/core/config';
import { ConfigError } from '@herald/core';
import { createJsonLogger, createPromMeter } from '@herald/metrics';
import { spawn } from 'node:child_process';
import { IN_CLASS_ENV, inClassCommand, requiredTokenHash, startManagementServer, startTier } from '@herald/production';
import { firstStopSignal } from '../stop-signals';

/**
 * `herald start <tier> --id <id>`: one tier of the production profile in this
 * process, until SIGINT/SIGTERM (stop at once: work resumes from checkpoints;
 * a second signal while it stops exits without waiting for the stop) or a
 * drain through its management endpoint (hand off, then exit).
 */
export async function runStart(
  tier: string,
  id: string,
  options: HeraldOptions,
  managementAddress?: string,
): Promise<void> {
  // Whatever the service manager's umask: files and directories this process creates are its user's only (docs/security.md).
  process.umask(0o077);
  const config = compileConfig(options);
  // bandwidth.enabled: an executor starts itself again inside its traffic class (cgroup/README.md).
  const inClass = inClassCommand(
    config.bandwidth,
    tier,
    id,
    [process.execPath, ...process.execArgv, ...process.argv.slice(1)],
    process.env,
  );
  if (inClass !== undefined) return runInClass(inClass.argv, inClass.kind);
  // The profile first (startTier says so), then the credential: a production process never runs without one.
  const tokenHash = config.profile === 'production' ? requiredTokenHash(config.management.tokenHash) : '';
  const logger = createJsonLogger({ level: 'info', base: { tier, id } });
  const meter = createPromMeter({ defaultMetrics: true });
  const running = await startTier(tier, { config, id, logger, meter });
  const address = managementAddress ?? config.management.endpoints[id];
  const management =
    address === undefined
      ? undefined
      : await startManagementServer(
          {
            id,
            tier,
            status: () => running.status(),
            drain: () => running.drain(),
            metrics: () => meter.exposition(),
            ...(running.channels ? { channels: running.channels } : {}),
            ...(running.deliveryRecords ? { deliveryRecords: running.deliveryRecords } : {}),
          },
          { address, faults: config.management.faults, tokenHash, allowRemote: config.management.allowRemote, logger },
        ).catch(async (error: unknown) => {
          await running.stop();
          throw error;
        });
  process.stdout.write(
    `herald: ${running.description} started${management ? ` (management on ${management.address})` : ''}\n`,
  );
  // A second signal while it stops exits at once (stop-signals.ts).
  const signalled = firstStopSignal();
  const how = await new Promise<'signal' | 'drain'>((resolve) => {
    void signalled.then(() => resolve('signal'));
    void management?.drained.then(() => resolve('drain'));
  });
  if (how === 'signal') await running.stop();
  await management?.close();
  process.stdout.write(`herald: ${running.description} ${how === 'drain' ? 'drained and ' : ''}stopped\n`);
}

/** Runs the command run-in-class.sh makes of this one, passing signals on, and exits with its status. */
async function runInClass(argv: string[], kind: string): Promise<void> {
  const child = spawn(argv[0]!, argv.slice(1), { stdio: 'inherit', env: { ...process.env, [IN_CLASS_ENV]: kind } });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  const code = await new Promise<number>((resolve, reject) => {
    // The script is missing or not executable.
    child.once('error', (error) =>
      reject(new ConfigError('bandwidth.script', `cannot run ${argv[0]}: ${error.message}`)),
    );
    child.once('exit', (status, signal) => resolve(status ?? (signal === null ? 1 : 128)));
  });
  process.off('SIGINT', forward);
  process.off('SIGTERM', forward);
  process.exitCode = code;
}
