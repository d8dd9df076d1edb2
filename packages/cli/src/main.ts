#!/usr/bin/env node
/**
 * The `herald` command. `herald demo` runs a broadcast end to end on the
 * embedded profile; `herald dev` serves the embedded cluster; `herald start`
 * runs one production tier; `herald admin` talks to a running process's
 * management endpoint.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { isHeraldError, redactSecrets } from '@herald/core';
import { TIERS } from '@herald/production';
import { loadOptions, withEnvironment } from './load-config';
import { runDemo } from './commands/demo';
import { runDev } from './commands/dev';
import { runKeys } from './commands/keys';
import { runMigrate } from './commands/migrate';
import {
  adminTargets,
  createCredential,
  managementAddress,
  managementToken,
  runAdminDrain,
  runAdminStatus,
  runAdminTrafficCut,
  type Target,
} from './commands/admin';
import { runStart } from './commands/start';
import { runRecover } from './commands/recover';
import { runRecipient } from './commands/recipient';
import { runRecipientHistory } from './commands/recipient-history';
import { recordsCommand } from './commands/records';
import { runTokenCreate, runTokenRevoke } from './commands/token';

const number = (name: string, min: number, max: number) => (raw: string) => {
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max)
    throw new InvalidArgumentError(`${name} must be a number in [${min}, ${max}]`);
  return value;
};

// Whatever a herald command creates (lists, stores, keys, delivery files) is its user's only, whatever the
// shell's or the service manager's umask; the creation sites also set their modes (docs/security.md).
process.umask(0o077);

/** The installed package's version: dist/main.js sits one folder below package.json. */
const VERSION = (JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string })
  .version;

const program = new Command('herald')
  .description('Herald: a distributed job scheduler for mass broadcast')
  .version(VERSION, '-V, --version', "print Herald's version");

program
  .command('dev')
  .description('start the embedded cluster (all tiers in this process) and serve the HTTP API')
  .option('-c, --config <file>', 'JSON configuration file (docs/configuration.md)')
  .option('--data-dir <dir>', 'data directory (overrides the config)')
  .option('--port <port>', 'HTTP port (overrides the config)', number('--port', 0, 65535))
  .action(async (opts: { config?: string; dataDir?: string; port?: number }) => {
    const base = withEnvironment(await loadOptions(opts.config));
    await runDev({
      ...base,
      ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
      http: { ...base.http, ...(opts.port !== undefined ? { port: opts.port } : {}) },
    });
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
  .option('--serve', 'after the broadcast, keep the cluster, the API and the console up until Ctrl-C')
  .action(
    async (opts: {
      recipients: number;
      online: number;
      loginShare: number;
      seed: number;
      dataDir?: string;
      config?: string;
      serve?: boolean;
    }) => {
      const ok = await runDemo({
        recipients: Math.floor(opts.recipients),
        online: opts.online,
        loginShare: opts.loginShare,
        seed: opts.seed,
        dataDir: opts.dataDir,
        keep: opts.dataDir !== undefined,
        base: await loadOptions(opts.config),
        serve: opts.serve === true,
      });
      process.exitCode = ok ? 0 : 1;
    },
  );

program
  .command('start')
  .description(`start one tier of the production profile in this process (${TIERS.join(', ')})`)
  .argument('<tier>', TIERS.join(' | '))
  .requiredOption('-c, --config <file>', 'JSON configuration file with "profile": "production"')
  .requiredOption('--id <id>', "this process's id: its topology entry and its CURVE key pair")
  .option('--port <port>', 'HTTP port of an interface process (overrides http.port)', number('--port', 0, 65535))
  .option('--management <host:port>', "this process's management endpoint (overrides management.endpoints.<id>)")
  .action(async (tier: string, opts: { config: string; id: string; port?: number; management?: string }) => {
    const base = withEnvironment(await loadOptions(opts.config));
    await runStart(
      tier,
      opts.id,
      opts.port === undefined ? base : { ...base, http: { ...base.http, port: opts.port } },
      opts.management,
    );
    // Stopped: exit now. A client library can keep a timer or socket alive for seconds after its
    // close (a Kafka reconnect, a ZooKeeper ping), and a restart must not find the old process still there.
    // With the status runStart set, if any (an executor started again in its bandwidth class exits with its child's).
    process.stdout.write('', () => process.exit());
  });

const admin = program
  .command('admin')
  .description("talk to a running process's management endpoint (management.endpoints in the config, or --address)");
const target = (command: Command) =>
  command
    .argument('[process]', 'the process id, looked up in management.endpoints')
    .option('-c, --config <file>', 'JSON configuration file naming management.endpoints')
    .option('--address <host:port>', 'the management endpoint, instead of looking the id up')
    .option(
      '--token-file <file>',
      'file holding the management token (else $HERALD_MANAGEMENT_TOKEN_FILE or $HERALD_MANAGEMENT_TOKEN)',
    );
const addressOf = async (
  id: string | undefined,
  opts: { config?: string; address?: string; tokenFile?: string },
): Promise<Target> => ({
  address: managementAddress(id, await loadOptions(opts.config), opts.address),
  token: await managementToken(opts.tokenFile),
});

target(admin.command('status').description("print a process's state as JSON")).action(
  async (id: string | undefined, opts: { config?: string; address?: string; tokenFile?: string }) => {
    await runAdminStatus(await addressOf(id, opts));
  },
);

target(
  admin
    .command('drain')
    .description(
      'make a process stop taking work, hand off or finish it, leave the cluster and exit; waits for the exit',
    ),
)
  .option('--timeout <ms>', 'give up waiting after this long', number('--timeout', 1, 86_400_000), 300_000)
  .action(
    async (
      id: string | undefined,
      opts: { config?: string; address?: string; tokenFile?: string; timeout: number },
    ) => {
      await runAdminDrain(await addressOf(id, opts), opts.timeout);
    },
  );

admin
  .command('credential')
  .description(
    "make the cluster's management token: writes it to a new file (mode 0600) and prints the management.tokenHash for the config",
  )
  .requiredOption('--out <file>', 'where to write the token (must not exist)')
  .action(async (opts: { out: string }) => {
    const hash = await createCredential(opts.out);
    process.stdout.write(`${JSON.stringify({ management: { tokenHash: hash } })}\n`);
  });

admin
  .command('targets')
  .description(
    "print a Prometheus file_sd targets file with every process's management endpoint (deploy/monitoring/prometheus.yml)",
  )
  .requiredOption('-c, --config <file>', 'JSON configuration file naming management.endpoints')
  .action(async (opts: { config: string }) => {
    process.stdout.write(`${JSON.stringify(adminTargets(await loadOptions(opts.config)), null, 2)}\n`);
  });

target(
  admin
    .command('fault')
    .description('fault injection for tests and drills (the process needs management.faults: true)'),
)
  .requiredOption('--traffic-cut <on|off>', "drop (on) or restore (off) all of the process's ZeroMQ traffic")
  .action(
    async (
      id: string | undefined,
      opts: { config?: string; address?: string; tokenFile?: string; trafficCut: string },
    ) => {
      if (opts.trafficCut !== 'on' && opts.trafficCut !== 'off')
        throw new InvalidArgumentError('--traffic-cut must be on or off');
      await runAdminTrafficCut(await addressOf(id, opts), opts.trafficCut === 'on');
    },
  );

const token = program
  .command('token')
  .description(
    'API tokens, written straight to the configured store (docs/api.md, "Authentication"); while the API runs, POST/DELETE /api/v1/tokens do the same',
  );
token
  .command('create')
  .description('make a token and print it once on stdout')
  .requiredOption('--role <role>', 'admin (every account) or operator (the --accounts only)')
  .requiredOption('--name <name>', 'who or what it is for; shown in listings and the audit log')
  .option('--accounts <ids>', "an operator's accounts, comma-separated")
  .option(
    '-c, --config <file>',
    'JSON configuration file: the access store of its profile (embedded: <dataDir>/access; production: MySQL)',
  )
  .option('--data-dir <dir>', 'data directory of an embedded cluster (overrides the config)')
  .action(async (opts: { role: string; name: string; accounts?: string; config?: string; dataDir?: string }) => {
    const base = await loadOptions(opts.config);
    await runTokenCreate(opts.dataDir === undefined ? base : { ...base, dataDir: opts.dataDir }, {
      role: opts.role,
      name: opts.name,
      ...(opts.accounts === undefined ? {} : { accounts: opts.accounts }),
    });
    process.stdout.write('', () => process.exit(0));
  });
token
  .command('revoke')
  .description('revoke a token by its id (the part after hrd_)')
  .argument('<id>', 'the token id')
  .option('-c, --config <file>', 'JSON configuration file (as for create)')
  .option('--data-dir <dir>', 'data directory of an embedded cluster (overrides the config)')
  .action(async (id: string, opts: { config?: string; dataDir?: string }) => {
    const base = await loadOptions(opts.config);
    await runTokenRevoke(opts.dataDir === undefined ? base : { ...base, dataDir: opts.dataDir }, id);
    process.stdout.write('', () => process.exit(0));
  });

program
  .command('keys')
  .description('write a CURVE key pair per process id (<dir>/<id>.key, <dir>/<id>.pub)')
  .requiredOption('--dir <dir>', 'the keys directory (curve.keysDir)')
  .argument('<ids...>', 'process ids: every interface, scheduler, dispatcher, executor and presence agent')
  .addHelpText(
    'after',
    [
      '',
      'Every process with a ZeroMQ socket needs a pair: interfaces, schedulers, dispatchers, executors and presence',
      'agents (controllers open none). Copy <id>.key only to the host that runs <id>; every host gets every .pub.',
      '',
      'Example:',
      '  herald keys --dir /etc/herald/keys interface-1 scheduler-1 scheduler-2 scheduler-3 \\',
      '    dispatcher-1 dispatcher-2 executor-1 executor-2 presence-31 presence-32',
    ].join('\n'),
  )
  .action(async (ids: string[], opts: { dir: string }) => {
    await runKeys(opts.dir, ids);
  });

program
  .command('migrate')
  .description("apply the MySQL schema's pending migrations (production profile)")
  .requiredOption('-c, --config <file>', 'JSON configuration file with the mysql settings')
  .action(async (opts: { config: string }) => {
    await runMigrate(await loadOptions(opts.config));
  });

program
  .command('recover')
  .description(
    "cross-site recovery: run a failed site's task again here, for the recipients its reports do not cover (docs/recovery.md)",
  )
  .requiredOption('--task <id>', "the task's id in the failed site", number('--task', 1, Number.MAX_SAFE_INTEGER))
  .requiredOption('-c, --config <file>', "this site's JSON configuration (its API address, its Kafka brokers)")
  .option(
    '--from-config <file>',
    "the failed site's configuration: its topic prefix, data directory (lists), uin space and task store",
  )
  .option('--from-prefix <prefix>', "the failed site's kafka.topicPrefix (overrides --from-config)")
  .option('--lists-dir <dir>', "the failed site's list storage, <dataDir>/lists (overrides --from-config)")
  .option('--brokers <list>', "Kafka brokers holding the reports, comma-separated (default: this site's)")
  .option(
    '--uin-space-bits <n>',
    "the failed site's uinSpaceBits (default: --from-config's, else this site's)",
    number('--uin-space-bits', 1, 32),
  )
  .option('--api <url>', "this site's HTTP API (default: http.host:http.port of --config)")
  .option(
    '--token <token>',
    "an API token of this site that may see the task's account (default: the HERALD_TOKEN environment variable)",
  )
  .option('--no-origin-store', "do not read the task from the failed site's task store; take it from the options below")
  .option('--account <id>', "the task's account (when its task store is not used)")
  .option('--body <text>', "the task's content body (when its task store is not used)")
  .option('--title <text>', "the task's content title")
  .option('--priority <class>', 'realtime | normal (default normal)')
  .option('--list-id <id>', "the task's uploaded list, used when it never got a filtered list")
  .action(
    async (opts: {
      task: number;
      config: string;
      fromConfig?: string;
      fromPrefix?: string;
      listsDir?: string;
      brokers?: string;
      uinSpaceBits?: number;
      api?: string;
      token?: string;
      originStore: boolean;
      account?: string;
      body?: string;
      title?: string;
      priority?: string;
      listId?: string;
    }) => {
      if (opts.priority !== undefined && opts.priority !== 'realtime' && opts.priority !== 'normal')
        throw new InvalidArgumentError('--priority must be realtime or normal');
      await runRecover({
        ...opts,
        task: Math.floor(opts.task),
        priority: opts.priority,
        token: opts.token ?? process.env.HERALD_TOKEN,
        config: await loadOptions(opts.config),
        fromConfig: opts.fromConfig === undefined ? undefined : await loadOptions(opts.fromConfig),
      });
      // The Kafka and MySQL clients may keep timers alive for a while after closing.
      process.stdout.write('', () => process.exit(0));
    },
  );

program
  .command('recipient <uin>')
  .description(
    'what happened to one recipient: its fate in one task (--task), or its broadcasts from an account (--account) (docs/recipient-truth.md)',
  )
  .option('--task <id>', 'the task', number('--task', 1, Number.MAX_SAFE_INTEGER))
  .option('--account <id>', 'without --task: whose broadcasts to list, newest first')
  .option('--from <date>', 'with --account: tasks created at or after this (RFC 3339; default 30 days before --to)')
  .option('--to <date>', 'with --account: tasks created before this (RFC 3339; default now)')
  .option('--limit <n>', 'with --account: broadcasts to print at most', number('--limit', 1, 10_000), 20)
  .option('--cursor <cursor>', 'with --account: go on where an earlier run stopped')
  .option('-c, --config <file>', "the cluster's JSON configuration (for the API's address)")
  .option('--api <url>', 'the HTTP API (default: http.host:http.port of --config)')
  .option('--token <token>', 'an API token that may see the account (default: the HERALD_TOKEN environment variable)')
  .option('--json', "print the API's answer as JSON")
  .action(async (uin: string, opts: RecipientOptions) => {
    const common = {
      uin,
      config: await loadOptions(opts.config),
      ...(opts.api === undefined ? {} : { api: opts.api }),
      token: opts.token ?? process.env.HERALD_TOKEN,
      json: opts.json === true,
    };
    if (opts.task === undefined) {
      const { account, from, to, cursor } = opts;
      await runRecipientHistory({ ...common, account, from, to, cursor, limit: Math.floor(opts.limit) });
      return;
    }
    const historyOnly = (['account', 'from', 'to', 'cursor'] as const).filter((name) => opts[name] !== undefined);
    if (historyOnly.length > 0)
      throw new InvalidArgumentError(`--${historyOnly[0]} lists a history: give it without --task`);
    await runRecipient({ ...common, task: Math.floor(opts.task) });
  });

recordsCommand(program);

interface RecipientOptions {
  task?: number;
  account?: string;
  from?: string;
  to?: string;
  limit: number;
  cursor?: string;
  config?: string;
  api?: string;
  token?: string;
  json?: boolean;
}

program.parseAsync(process.argv).catch((error: unknown) => {
  // Exit now: a half-started process may hold open connections (a pool, a ZooKeeper client
  // retrying) that would keep it alive after the one line that says what is wrong.
  // Redacted: a driver's error may quote a URL with its password (docs/security.md).
  const text = isHeraldError(error)
    ? `${error.code}: ${error.message}`
    : error instanceof Error
      ? error.message
      : String(error);
  process.stderr.write(`herald: ${redactSecrets(text)}\n`, () => process.exit(1));
});
