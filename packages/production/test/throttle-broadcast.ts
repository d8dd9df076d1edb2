import { encodeRecipientList } from '@herald/core/recipient-list';
import type { ListMeta, Task } from '@herald/core/task';
import type { SyntheticAudience } from '@herald/audience';
import { authHeaders, type ProcessCluster, waitFor } from '@herald/testing';

/** The push service's limit in the per-channel throttle tests (issue 20): recipients per second. */
export const THROTTLE_LIMIT = 20_000;

/**
 * The cluster settings the per-channel throttle tests share with the
 * webhook's (channel-budget.test.ts): two executors, each its own process,
 * batches of 500 (some 200 requests, so 1% of them is a count, not a
 * rounding), and a recipient's memory estimate so large that the task's
 * units split over both executors.
 */
export const THROTTLE_CLUSTER = {
  dispatcher: { batchSize: 500, unitSize: 20_000 },
  load: { memoryBytesPerRecipient: 1 << 20 },
};

/**
 * The time left out before the send rate is measured. The issue asks for
 * "after the first 10 s", but 10^5 recipients at 20k/s take about 5 s: the
 * whole broadcast. The pacing starts at `maxRate` (the limit, as an operator
 * who knows it sets it), so there is no climb to wait out; the first second
 * (the units' first batches, the processes' first sends) is left out.
 */
export const SETTLE_MS = 1_000;

/**
 * Uploads the audience's list, creates a task for it and waits until the
 * task ends, up to `timeoutMs`; a timeout says the task as last read.
 */
export async function broadcastToEnd(
  cluster: ProcessCluster,
  audience: SyntheticAudience,
  body: string,
  timeoutMs = 180_000,
): Promise<Task> {
  const api = async <T>(path: string, init: RequestInit = {}): Promise<T> => {
    const response = await fetch(cluster.url + path, { ...init, headers: { ...init.headers, ...authHeaders() } });
    return (await response.json()) as T;
  };
  const list = await api<ListMeta>('/api/v1/lists?accountId=acme', {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream' },
    body: encodeRecipientList(audience.list),
  });
  const created = await api<Task>('/api/v1/tasks', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ accountId: 'acme', listId: list.id, content: { body } }),
  });
  let task: Task | undefined;
  await waitFor(
    async () => {
      task = await api<Task>(`/api/v1/tasks/${created.id}`);
      return ['COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'].includes(task.state);
    },
    { timeoutMs, intervalMs: 200, message: `task ${created.id} ending` },
  ).catch((error: unknown) => {
    // The message is made before the first read: the task as last read is added here.
    throw new Error(`${(error as Error).message}; last read: ${JSON.stringify(task)?.slice(0, 600)}`, {
      cause: error,
    });
  });
  return task!;
}

/** One of executor `id`'s counters for `channel` (e.g. herald_channel_failed_total), from its management endpoint's metrics. */
export async function channelCounter(
  cluster: ProcessCluster,
  id: string,
  channel: string,
  metric: string,
): Promise<number> {
  const response = await fetch(`http://${cluster.managementAddress(id)}/metrics`, {
    headers: cluster.managementHeaders(),
  });
  const line = (await response.text()).split('\n').find((l) => l.startsWith(`${metric}{channel="${channel}"}`));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}
