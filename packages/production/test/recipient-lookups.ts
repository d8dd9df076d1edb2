import type { RecipientFate } from '@herald/core/fate';
import { authHeaders, type ProcessCluster } from '@herald/testing';

/**
 * Asking a production cluster's interface about recipients
 * (docs/recipient-truth.md): one answer, many answers a few at a time, and
 * the delivery report's CSV rows. Shared by the recipient-truth tests.
 */

/** The per-recipient answer, with the fields the tests read whatever its fate. */
export type Answer = RecipientFate & {
  taskId: number;
  reason?: string;
  executor?: string;
  at?: number;
  link?: string;
  then?: { outcome: string; at?: number; until?: number; why?: string; reason?: string };
};

/** Times a call refused by the API's rate limit (429) is made again, after the wait the answer names. */
const RATE_LIMITED_RETRIES = 100;

/**
 * A JSON API call with the test admin's token; throws on an error status, with its body. A 429 is waited
 * out and asked again, as a client of the documented rate limit does (docs/api.md): on a quiet machine the
 * lookups run faster than the token's share, and the limit is part of what is tested, not turned off.
 */
export async function api<T>(cluster: ProcessCluster, path: string, init?: RequestInit): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(cluster.url + path, { ...init, headers: { ...init?.headers, ...authHeaders() } });
    if (response.status === 429 && attempt < RATE_LIMITED_RETRIES) {
      const body = (await response.json()) as { error?: { details?: { retryAfterMs?: number } } };
      await new Promise((resolve) => setTimeout(resolve, Math.max(body.error?.details?.retryAfterMs ?? 1000, 10)));
      continue;
    }
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  }
}

/** `f` over `items`, `width` at a time, in order. */
export async function mapPooled<T, R>(items: readonly T[], width: number, f: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await f(items[i]!);
      }
    }),
  );
  return out;
}

/** `GET /api/v1/tasks/:id/recipients/:uin`. */
export function lookup(cluster: ProcessCluster, taskId: number, uin: number): Promise<Answer> {
  return api<Answer>(cluster, `/api/v1/tasks/${taskId}/recipients/${uin}`);
}

/** One row of the delivery report's CSV (docs/api.md, its columns), and the row as received. */
export interface ReportRow {
  uin: number;
  position: string;
  fate: string;
  detail: string;
  at: string;
  executor: string;
  thenAt: string;
  row: string;
}

/** Every row of the task's CSV report (none of its cells is quoted: no reason the tests meet holds a comma). */
export async function reportRows(cluster: ProcessCluster, taskId: number): Promise<ReportRow[]> {
  const response = await fetch(`${cluster.url}/api/v1/tasks/${taskId}/report`, { headers: authHeaders() });
  if (response.status !== 200) throw new Error(`report: ${response.status} ${await response.text()}`);
  const [header, ...rows] = (await response.text()).trimEnd().split('\n');
  if (header !== 'uin,position,fate,detail,at,executor,then_at') throw new Error(`report header: ${header}`);
  return rows.map((row) => {
    const [uin, position, fate, detail, at, executor, thenAt] = row.split(',');
    return {
      uin: Number(uin),
      position: position!,
      fate: fate!,
      detail: detail!,
      at: at!,
      executor: executor!,
      thenAt: thenAt!,
      row,
    };
  });
}

/**
 * The CSV row the report must hold for a uin whose per-recipient answer is
 * `answer`, written from docs/api.md's columns (not from the report's code).
 */
export function expectedRow(answer: Answer): Omit<ReportRow, 'row'> {
  const iso = (ms: number | undefined) => (ms === undefined ? '' : new Date(ms).toISOString());
  const then = answer.then;
  const offlineDetail = () =>
    then!.outcome === 'dropped_at_login'
      ? `dropped_at_login: ${then!.why}`
      : then!.outcome === 'unknown'
        ? `unknown: ${then!.reason}`
        : then!.outcome;
  const detail: Record<string, () => string> = {
    removed: () => answer.link!,
    rejected: () => answer.reason!,
    unknown: () => answer.reason!,
    queued_offline: offlineDetail,
  };
  const pushed = ['delivered_online', 'rejected', 'queued_offline'].includes(answer.fate);
  return {
    uin: answer.uin,
    position: answer.position === undefined ? '' : String(answer.position),
    fate: answer.fate,
    detail: detail[answer.fate]?.() ?? '',
    at: pushed ? iso(answer.at) : '',
    executor: pushed ? answer.executor! : '',
    thenAt: answer.fate === 'queued_offline' ? iso(then!.at ?? then!.until) : '',
  };
}
