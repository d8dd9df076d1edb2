import { Command, InvalidArgumentError } from 'commander';
import type { HeraldOptions } from '@herald/core/config';
import type { PurgedRecords } from '@herald/core/ports';
import { api } from '../http-client';
import { loadOptions } from '../load-config';
import { targetOf } from './recipient';

export interface RecordsPurgeArgs {
  task: number;
  /** The cluster's config, for the API's address when --api is not given. */
  config: HeraldOptions;
  api?: string;
  /** --token, else HERALD_TOKEN. */
  token?: string;
  /** Print the API's answer as JSON instead of a sentence. */
  json?: boolean;
}

/** What DELETE /api/v1/tasks/:id/records answers. */
export type PurgeAnswer = PurgedRecords & { taskId: number };

/**
 * `herald records purge --task ID`: removes a finished task's delivery
 * records through DELETE /api/v1/tasks/:id/records (docs/recipient-truth.md,
 * "Purging a task's records"). The API decides who may and which tasks are
 * over; its refusal (409 TASK_NOT_OVER, 503 naming executors that did not
 * answer) is printed as is and the command exits non-zero.
 */
export async function runRecordsPurge(args: RecordsPurgeArgs, write = (text: string) => process.stdout.write(text)) {
  const purged = await api<PurgeAnswer>(targetOf(args), 'DELETE', `/api/v1/tasks/${args.task}/records`);
  write(args.json === true ? `${JSON.stringify(purged)}\n` : `${describePurge(purged)}\n`);
  return purged;
}

/** One line: what was removed, or that nothing was left. */
export function describePurge({ taskId, batches, logins }: PurgeAnswer): string {
  if (batches === 0 && logins === 0) return `task ${taskId}: no delivery records left to purge`;
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  return `task ${taskId}: purged ${plural(batches, 'batch record', 'batch records')} and ${plural(logins, 'login outcome', 'login outcomes')}`;
}

/** A task id as the API takes it: a whole number from 1, in decimal, nothing else ("1.5", "1e3" and "0x10" are refused). */
export function taskIdOption(raw: string): number {
  const id = Number(raw);
  if (!/^[1-9][0-9]{0,15}$/.test(raw) || !Number.isSafeInteger(id))
    throw new InvalidArgumentError(`--task must be a task id, a whole number from 1 (got '${raw.slice(0, 40)}')`);
  return id;
}

interface PurgeOptions {
  task: number;
  config?: string;
  api?: string;
  token?: string;
  json?: boolean;
}

/** `herald records`: a task's delivery records, through the HTTP API. */
export function recordsCommand(program: Command): void {
  const records = program
    .command('records')
    .description("a task's per-recipient delivery records, through the HTTP API (docs/recipient-truth.md)");
  records
    .command('purge')
    .description(
      'remove a finished task\'s delivery records (completed, cancelled, expired or failed); its state and report stay (docs/recipient-truth.md, "Purging a task\'s records")',
    )
    .requiredOption('--task <id>', 'the task', taskIdOption)
    .option('-c, --config <file>', "the cluster's JSON configuration (for the API's address)")
    .option('--api <url>', 'the HTTP API (default: http.host:http.port of --config)')
    .option(
      '--token <token>',
      "an API token that may see the task's account (default: the HERALD_TOKEN environment variable)",
    )
    .option('--json', "print the API's answer as JSON")
    .action(async (opts: PurgeOptions) => {
      await runRecordsPurge({
        task: opts.task,
        config: await loadOptions(opts.config),
        ...(opts.api === undefined ? {} : { api: opts.api }),
        token: opts.token ?? process.env.HERALD_TOKEN,
        json: opts.json === true,
      });
    });
}
