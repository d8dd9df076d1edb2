import type { Delivery, DeliveryGateway } from '@herald/core/ports';
import { encodeRecipientList } from '@herald/core/recipient-list';
import { seededRandom } from '@herald/core';
import { radixSortUint32, subtractSorted, uniqueSorted } from '@herald/core/uins';
import type { ListMeta, Task, TERMINAL_TASK_STATES } from '@herald/core/task';
import { readDeliveryFile } from '@herald/executor';
import type { EmbeddedCluster } from '@herald/embedded';
import { authHeaders, waitFor } from '@herald/testing';

type Terminal = (typeof TERMINAL_TASK_STATES)[number];

/** A call to the cluster's API as the test admin (the clusters start with auth: TEST_AUTH_OPTIONS). */
export async function call<T = unknown>(
  cluster: EmbeddedCluster,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const response = await fetch(cluster.url + path, {
    method,
    headers: body === undefined ? authHeaders() : { 'content-type': 'application/json', ...authHeaders() },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as T };
}

export async function upload<T = ListMeta>(
  cluster: EmbeddedCluster,
  path: string,
  bytes: Uint8Array,
): Promise<{ status: number; body: T }> {
  const response = await fetch(cluster.url + path, {
    method: path.startsWith('/api/v1/lists') ? 'POST' : 'PUT',
    headers: { 'content-type': 'application/octet-stream', ...authHeaders() },
    body: bytes,
  });
  return { status: response.status, body: (await response.json()) as T };
}

export function listBytes(uins: ArrayLike<number>): Buffer {
  return encodeRecipientList(uins);
}

export async function waitForState(
  cluster: EmbeddedCluster,
  taskId: number,
  states: readonly string[],
  timeoutMs = 60_000,
): Promise<Task> {
  let task: Task | undefined;
  await waitFor(
    async () => {
      task = await cluster.store.getTask(taskId);
      return task !== undefined && states.includes(task.state);
    },
    { timeoutMs, intervalMs: 20, message: `task ${taskId} did not reach ${states.join('|')} (last: ${task?.state})` },
  );
  return task!;
}

export const waitForEnd = (cluster: EmbeddedCluster, taskId: number, timeoutMs?: number) =>
  waitForState(cluster, taskId, ['COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'] satisfies Terminal[], timeoutMs);

/** Every uin the file sink holds for a task, sorted, with repeats kept. */
export async function sinkUins(cluster: EmbeddedCluster, taskId: number): Promise<Uint32Array> {
  const { uins } = await readDeliveryFile(cluster.deliveryDir, taskId);
  return radixSortUint32(uins.slice());
}

/** Every uin still in offline lists for a task, sorted. */
export async function offlineUins(cluster: EmbeddedCluster, taskId: number): Promise<Uint32Array> {
  const parts: Uint32Array[] = [];
  for await (const part of cluster.offline.scanTask(taskId)) parts.push(part);
  const all = new Uint32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  return radixSortUint32(all);
}

/** Expected split of a synthetic audience: kept = distinct - blacklist; online/offline of kept. */
export function expectedSplit(audience: { distinct: Uint32Array; blacklist: Uint32Array; online: Uint32Array }) {
  const kept = subtractSorted(audience.distinct.slice(), audience.blacklist);
  const offline = subtractSorted(kept.slice(), audience.online);
  const online = subtractSorted(kept.slice(), offline);
  return { kept, online, offline };
}

export { uniqueSorted };

/**
 * A DeliveryGateway in front of another that can be held shut: while held,
 * `deliver` waits (the batch stays in flight) until `release()`. Lets a test
 * stop, pause or restart the cluster at a known point of a broadcast instead
 * of racing it.
 */
export class GatedGateway implements DeliveryGateway {
  private gate: Promise<void> | undefined;
  private open: (() => void) | undefined;
  /** Batches that reached the gate (delivered or waiting). */
  arrived = 0;
  waiting = 0;

  constructor(private readonly inner: DeliveryGateway) {}

  hold(): void {
    this.gate ??= new Promise<void>((resolve) => (this.open = resolve));
  }

  release(): void {
    this.open?.();
    this.gate = undefined;
    this.open = undefined;
  }

  async deliver(delivery: Delivery): Promise<void> {
    this.arrived++;
    if (this.gate) {
      this.waiting++;
      await this.gate;
      this.waiting--;
    }
    await this.inner.deliver(delivery);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/**
 * A seeded audience with every kind of recipient the filter chain and the executors tell apart: `count`
 * distinct uins (drawn from `draws` random ones below 2^uinSpaceBits), 10% of them listed twice, 6.6%
 * blacklisted, 40% online. `random` is the same generator, for whatever the test draws next.
 */
export function mixedAudience(seed: number, count: number, draws: number, uinSpaceBits: number) {
  const random = seededRandom(seed);
  const distinct = uniqueSorted(
    radixSortUint32(Uint32Array.from({ length: draws }, () => Math.floor(random() * 2 ** uinSpaceBits))),
  ).subarray(0, count);
  const pick = (fraction: number) => distinct.filter(() => random() < fraction);
  const repeated = pick(0.1);
  const blacklist = pick(0.066);
  const online = pick(0.4);
  return { random, distinct, repeated, blacklist, online, list: Uint32Array.from([...distinct, ...repeated]) };
}

/** Runs `check` on every item with at most `limit` in flight; the first failure rejects once the rest settle. */
export async function inFlight<T>(
  items: readonly T[],
  limit: number,
  check: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await check(items[next++]!);
  };
  const results = await Promise.allSettled(Array.from({ length: Math.min(limit, items.length) }, worker));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
}
