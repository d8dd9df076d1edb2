import type { HeraldOptions } from '@herald/core/config';
import type { RecipientFate } from '@herald/core/fate';
import { compileConfig } from '@herald/core/config';
import { ConfigError } from '@herald/core';
import { api, type ApiTarget } from '../http-client';

export interface RecipientArgs {
  uin: string;
  task: number;
  /** The cluster's config, for the API's address when --api is not given. */
  config: HeraldOptions;
  api?: string;
  /** --token, else HERALD_TOKEN. */
  token?: string;
  /** Print the API's answer as JSON instead of a sentence. */
  json?: boolean;
}

/**
 * `herald recipient <uin> --task ID`: what happened to one recipient in one
 * task, from GET /api/v1/tasks/:id/recipients/:uin (docs/recipient-truth.md).
 * The API checks the uin and the caller's access; its error is printed as is.
 */
export async function runRecipient(args: RecipientArgs, write = (text: string) => process.stdout.write(text)) {
  const target = targetOf(args);
  const fate = await api<RecipientFate & { taskId: number }>(
    target,
    'GET',
    `/api/v1/tasks/${args.task}/recipients/${encodeURIComponent(args.uin)}`,
  );
  write(args.json === true ? `${JSON.stringify(fate)}\n` : `${describeFate(fate)}\n`);
  return fate;
}

/** Where the API is (--api, else the config's http address) and the token to call it with. */
export function targetOf(args: { config: HeraldOptions; api?: string; token?: string }): ApiTarget {
  if (args.token === undefined || args.token === '')
    throw new ConfigError('--token', 'give an API token that may see the account (--token, or HERALD_TOKEN)');
  return { url: args.api ?? apiOf(compileConfig(args.config)), token: args.token };
}

const apiOf = (config: ReturnType<typeof compileConfig>) =>
  `http://${config.http.host === '0.0.0.0' ? '127.0.0.1' : config.http.host}:${config.http.port}`;

const when = (ms: number) => new Date(ms).toISOString();

/** One line a support desk can read out: the fate, then where in the list and any duplicate copies. */
export function describeFate(fate: RecipientFate & { taskId: number }): string {
  const head = `task ${fate.taskId}, uin ${fate.uin}: `;
  const where = fate.position === undefined ? '' : ` (position ${fate.position} of the filtered list)`;
  const copies =
    fate.duplicateCopiesRemoved === undefined ? '' : `; ${fate.duplicateCopiesRemoved} duplicate copies removed`;
  return head + fateSentence(fate) + where + copies;
}

/** The fate alone, as a sentence: what the one-task answer and each history line say. */
export function fateSentence(fate: RecipientFate): string {
  switch (fate.fate) {
    case 'not_in_audience':
      return 'not in the audience';
    case 'removed':
      return `removed by the filter chain: ${fate.link}`;
    case 'delivered_online':
      return `delivered online at ${when(fate.at)} by ${fate.executor}`;
    case 'rejected':
      return `rejected by the push channel (${fate.reason}) at ${when(fate.at)} via ${fate.executor}`;
    case 'queued_offline':
      return `queued offline at ${when(fate.at)} by ${fate.executor}, then ${offlineThen(fate.then)}`;
    case 'not_reached':
      return `not reached: ${fate.why}`;
    case 'unknown':
      return `unknown: ${fate.reason}`;
  }
}

function offlineThen(then: Extract<RecipientFate, { fate: 'queued_offline' }>['then']): string {
  switch (then.outcome) {
    case 'waiting':
      return `waiting for a login until ${when(then.until)}`;
    case 'delivered_at_login':
      return `delivered at login at ${when(then.at)}`;
    case 'expired':
      return `expired at ${when(then.at)} without a login`;
    case 'dropped_at_login':
      return `dropped at login at ${when(then.at)} (${then.why})`;
    case 'unknown':
      return `unknown: ${then.reason}`;
  }
}
