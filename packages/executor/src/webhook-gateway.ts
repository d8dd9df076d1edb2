import { setTimeout as sleep } from 'node:timers/promises';
import { ErrorCodes, HeraldError } from '@herald/core';
import type { Delivery, DeliveryGateway } from '@herald/core/ports';

export interface WebhookGatewayOptions {
  /** Where each batch is POSTed (http or https). */
  url: string;
  /** Per attempt; an attempt that takes longer is abandoned and counts as failed. */
  timeoutMs: number;
  /** Attempts per batch before `deliver` rejects (UNAVAILABLE, retriable). */
  maxAttempts: number;
  /** Wait before the second attempt; doubled for each further one, at most 5 s. */
  retryDelayMs: number;
  /** Sent with every request, e.g. an Authorization header the receiver expects. */
  headers: Readonly<Record<string, string>>;
}

/** The body of one POST: one batch, one task. */
export interface WebhookBatch {
  taskId: number;
  /** True when the batch comes from a user's offline list at login. */
  atLogin: boolean;
  /** Pre-delivery: when the client shows the message (epoch ms); null: on arrival. */
  displayAt: number | null;
  content: Delivery['content'];
  uins: number[];
  /** A personalised (template) task: what each recipient receives, `contents[i]` for `uins[i]`; absent otherwise. */
  contents?: Delivery['content'][];
}

const MAX_RETRY_DELAY_MS = 5000;

/**
 * A DeliveryGateway that POSTs each batch as JSON to a push service's webhook
 * (docs/delivery.md). A 2xx answer accepts the batch. Network errors,
 * timeouts, 408, 429 and 5xx are tried again, with a doubling delay, up to
 * `maxAttempts`; then `deliver` rejects UNAVAILABLE (retriable), the batch
 * counts as not delivered, and the scheduler's stall watch runs it again
 * later. Any other answer rejects at once with DELIVERY_REJECTED: the
 * receiver refused this batch, and sending it again unchanged would not help.
 *
 * Every request carries `Idempotency-Key: <taskId>:<P|L>:<first uin>:<last uin>:<count>`
 * (P pushed online, L at login). A batch sent again, after a crash or a lost
 * answer, carries the same key and the same uins; each delivery inside it is
 * keyed (taskId, uin), which is what the receiver must deduplicate on.
 */
export class WebhookDeliveryGateway implements DeliveryGateway {
  private readonly stop = new AbortController();

  constructor(private readonly options: WebhookGatewayOptions) {}

  async deliver(delivery: Delivery): Promise<void> {
    if (this.stop.signal.aborted)
      throw new HeraldError(ErrorCodes.UNAVAILABLE, 'the webhook delivery gateway is closed');
    const n = delivery.uins.length;
    if (n === 0) return;
    const batch: WebhookBatch = {
      taskId: delivery.taskId,
      atLogin: delivery.atLogin,
      displayAt: delivery.displayAt ?? null,
      content: delivery.content,
      uins: Array.from(delivery.uins),
      ...(delivery.contents === undefined ? {} : { contents: [...delivery.contents] }),
    };
    const key = `${delivery.taskId}:${delivery.atLogin ? 'L' : 'P'}:${delivery.uins[0]}:${delivery.uins[n - 1]}:${n}`;
    const body = JSON.stringify(batch);
    let lastFailure = '';
    for (let attempt = 1; attempt <= this.options.maxAttempts; attempt++) {
      if (attempt > 1) {
        const delay = Math.min(MAX_RETRY_DELAY_MS, this.options.retryDelayMs * 2 ** (attempt - 2));
        await sleep(delay, undefined, { signal: this.stop.signal }).catch(() => undefined);
        if (this.stop.signal.aborted) break;
      }
      const outcome = await this.post(body, key);
      if (outcome === 'accepted') return;
      if (outcome.retriable === false) {
        throw new HeraldError(
          ErrorCodes.DELIVERY_REJECTED,
          `webhook ${this.options.url} refused task ${delivery.taskId}'s batch of ${n}: ${outcome.reason}`,
          {
            details: { taskId: delivery.taskId, idempotencyKey: key },
          },
        );
      }
      lastFailure = outcome.reason;
    }
    throw new HeraldError(
      ErrorCodes.UNAVAILABLE,
      `webhook ${this.options.url} did not accept task ${delivery.taskId}'s batch of ${n}: ${lastFailure || 'gateway closed'}`,
      {
        retriable: true,
        details: { taskId: delivery.taskId, idempotencyKey: key },
      },
    );
  }

  async close(): Promise<void> {
    this.stop.abort();
  }

  private async post(body: string, key: string): Promise<'accepted' | { retriable: boolean; reason: string }> {
    const signal = AbortSignal.any([this.stop.signal, AbortSignal.timeout(this.options.timeoutMs)]);
    let status: number;
    let text: string;
    try {
      const response = await fetch(this.options.url, {
        method: 'POST',
        headers: { ...this.options.headers, 'content-type': 'application/json', 'idempotency-key': key },
        body,
        signal,
      });
      status = response.status;
      // Read (and so release) the body either way; only a refusal's text is kept, for the error.
      text = (await response.text().catch(() => '')).slice(0, 200);
    } catch (error) {
      const timedOut = (error as Error).name === 'TimeoutError';
      return {
        retriable: true,
        reason: timedOut ? `no answer within ${this.options.timeoutMs} ms` : String((error as Error).cause ?? error),
      };
    }
    if (status >= 200 && status < 300) return 'accepted';
    const retriable = status === 408 || status === 429 || status >= 500;
    return { retriable, reason: `HTTP ${status}${text ? ` ${text}` : ''}` };
  }
}
