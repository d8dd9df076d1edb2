#!/usr/bin/env node
/**
 * The `herald` command. `herald demo` runs a broadcast end to end on the
 * embedded profile; `herald dev` serves the embedded cluster.
 */
import { Command, InvalidArgumentError } from 'commander';
import { isHeraldError } from '@herald/core';
import { loadOptions } from './load-config';
import { runDemo } from './commands/demo';
import { runDev } from './commands/dev';

const number = (name: string, min: number, max: number) => (raw: string) => {
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) throw new InvalidArgumentError(`${name} must be a number in [${min}, ${max}]`);
  return value;
};

const program = new Command('herald').description('Herald: a distributed job scheduler for mass broadcast');

program
  .command('dev')
  .description('start the embedded cluster (all tiers in this process) and serve the HTTP API')
  .option('-c, --config <file>', 'JSON configuration file (docs/configuration.md)')
  .option('--data-dir <dir>', 'data directory (overrides the config)')
  .option('--port <port>', 'HTTP port (overrides the config)', number('--port', 0, 65535))
  .action(async (opts: { config?: string; dataDir?: string; port?: number }) => {
    const base = await loadOptions(opts.config);
    await runDev({ ...base, ...(opts.dataDir ? { dataDir: opts.dataDir } : {}), http: { ...base.http, ...(opts.port !== undefined ? { port: opts.port } : {}) } });
  });

program
  .command('demo')
  .description('run a synthetic broadcast through the real tiers and print a reconciled summary')
  .option('-n, --recipients <n>', 'recipients in the synthetic list', number('--recipients', 1, 1e9), 1_000_000)
  .option('--online <fraction>', 'share of recipients online', number('--online', 0, 1), 0.3)
  .option('--login-share <fraction>', 'share of offline users who then log in', number('--login-share', 0, 1), 0.01)
  .option('--seed <n>', 'PRNG seed for the synthetic audience', number('--seed', 0, 2 ** 32 - 1), 1)
  .option('--data-dir <dir>', 'keep the data here (default: a temporary directory, removed after)')
  .option('-c, --config <file>', 'JSON configuration file')
  .action(async (opts: { recipients: number; online: number; loginShare: number; seed: number; dataDir?: string; config?: string }) => {
    const ok = await runDemo({
      recipients: Math.floor(opts.recipients),
      online: opts.online,
      loginShare: opts.loginShare,
      seed: opts.seed,
      dataDir: opts.dataDir,
      keep: opts.dataDir !== undefined,
      base: await loadOptions(opts.config),
    });
    process.exitCode = ok ? 0 : 1;
  });

program.parseAsync(process.argv).catch((error: unknown) => {
  process.stderr.write(`herald: ${isHeraldError(error) ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
