/**
 * The campaign that fired a task, read off its idempotency key: the
 * controller creates each firing under `campaign:<id>:<scheduledAt>`
 * (an API-created task's key starts `api:`). Null for any other task.
 */
export function campaignOfTask(idempotencyKey: string | null | undefined): number | null {
  const found = /^campaign:(\d+):\d+$/.exec(idempotencyKey ?? '');
  return found === null ? null : Number(found[1]);
}
