import { join } from 'node:path';
import { compileConfig, type HeraldConfig, type HeraldOptions } from '@herald/core/config';
import { ConfigError } from '@herald/core';
import { noopLogger } from '@herald/core/ports';
import type { PriorityClass } from '@herald/core/task';
import {
  kafkaSecurityOptions,
  openTaskStore,
  readOriginTask,
  recoverTask,
  type OriginTask,
  type RecoverySummary,
} from '@herald/production';

/** `herald recover` options as commander gives them (docs/recovery.md). */
export interface RecoverArgs {
  task: number;
  /** The failed site's config file, read for its topic prefix, data directory, uin space and task store. */
  fromConfig?: HeraldOptions;
  fromPrefix?: string;
  listsDir?: string;
  brokers?: string;
  uinSpaceBits?: number;
  /** This site's config, for its API address and (without --brokers) its brokers. */
  config: HeraldOptions;
  api?: string;
  /** The token to call this site's API with (--token, else HERALD_TOKEN). */
  token?: string;
  /** Origin task fields when the failed site's task store is not reachable (or --no-origin-store). */
  account?: string;
  body?: string;
  title?: string;
  priority?: PriorityClass;
  listId?: string;
  originStore: boolean;
}

const apiOf = (config: HeraldConfig) =>
  `http://${config.http.host === '0.0.0.0' ? '127.0.0.1' : config.http.host}:${config.http.port}`;

/** The origin task from the failed site's task store when reachable, else from the options (or an error naming what is missing). */
async function originTask(
  args: RecoverArgs,
  from: HeraldConfig | undefined,
  say: (line: string) => void,
): Promise<OriginTask> {
  const fromOptions = (why: string): OriginTask => {
    if (args.account === undefined || args.body === undefined)
      throw new ConfigError(
        '--account/--body',
        `${why}: give the origin task's --account and --body (and --priority, --title)`,
      );
    say(`origin task from the options (${why})`);
    return {
      accountId: args.account,
      content: args.title === undefined ? { body: args.body } : { body: args.body, title: args.title },
      priority: args.priority ?? 'normal',
      ...(args.listId === undefined ? {} : { listId: args.listId }),
      source: 'options',
    };
  };
  if (!args.originStore) return fromOptions('--no-origin-store');
  if (from?.production == null) return fromOptions("no --from-config with the failed site's mysql settings");
  let store;
  try {
    store = await openTaskStore(from, noopLogger);
  } catch (error) {
    return fromOptions(`the failed site's task store cannot be opened: ${(error as Error).message}`);
  }
  try {
    const origin = await readOriginTask(store, args.task);
    say(`origin task from the failed site's task store (${from.production.mysql.database})`);
    return origin;
  } finally {
    await store.close();
  }
}

/** `herald recover --task <id> ...`: prints progress lines, then the summary as one JSON line. */
export async function runRecover(args: RecoverArgs): Promise<RecoverySummary> {
  const say = (line: string) => process.stdout.write(`herald recover: ${line}\n`);
  const here = compileConfig(args.config);
  const from = args.fromConfig === undefined ? undefined : compileConfig(args.fromConfig);
  const topicPrefix = args.fromPrefix ?? from?.production?.kafka.topicPrefix;
  if (topicPrefix === undefined)
    throw new ConfigError(
      '--from-prefix',
      "the failed site's kafka.topicPrefix is unknown: give --from-prefix or --from-config",
    );
  const listsDir = args.listsDir ?? (from === undefined ? undefined : join(from.dataDir, 'lists'));
  if (listsDir === undefined)
    throw new ConfigError(
      '--lists-dir',
      "the failed site's list storage is unknown: give --lists-dir or --from-config",
    );
  const brokers = args.brokers?.split(',') ?? here.production?.kafka.brokers ?? from?.production?.kafka.brokers;
  if (brokers === undefined)
    throw new ConfigError('--brokers', 'no Kafka brokers: give --brokers or a production --config');
  // The credentials of the config the brokers come from (this site's unless only the failed site's names brokers).
  const kafkaSettings = here.production?.kafka ?? from?.production?.kafka;
  const security = kafkaSettings === undefined ? {} : kafkaSecurityOptions(kafkaSettings);
  const uinSpaceBits = args.uinSpaceBits ?? from?.uinSpaceBits ?? here.uinSpaceBits;

  const origin = await originTask(args, from, say);
  const summary = await recoverTask({
    taskId: args.task,
    reports: { brokers, topicPrefix, clientId: 'herald-recover', ...security },
    listsDir,
    uinLimit: 2 ** uinSpaceBits,
    origin,
    apiUrl: args.api ?? apiOf(here),
    ...(args.token === undefined ? {} : { apiToken: args.token }),
    onProgress: say,
  });
  process.stdout.write(`herald recover: summary ${JSON.stringify(summary)}\n`);
  return summary;
}
