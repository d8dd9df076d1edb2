import { ErrorCodes, HeraldError } from '@herald/core';
import { noopLogger, type Delivery, type DeliveryGateway, type DeliveryResult, type Logger } from '@herald/core/ports';
import { parseRejections, parseRetryAfter } from './webhook-answer';

export interface WebhookGatewayOptions {
  /** Where each batch is POSTed (http or https). */
  url: string;
  /** Per request; a request that takes longer is abandoned and counts as failed. */
  timeoutMs: number;
  /** Sent with every request, e.g. an Authorization header the receiver expects. */
  headers: Readonly<Record<string, string>>;
  /** Reads the time an HTTP-date Retry-After is counted from. Default Date.now. */
  now?: () => number;
  /** Where a malformed answer body is reported. */
  logger?: Logger;
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

/**
 * A DeliveryGateway that POSTs each batch as JSON to a push service's webhook
 * (docs/delivery.md), once per `deliver`; pacing and trying again are the
 * channel's (PacedDeliveryGateway). Its answer is the outcome:
 * - 2xx: accepted; a body `{"rejected": [{"uin", "reason"}]}` names the
 *   recipients refused for good (webhook-answer.ts);
 * - 429: throttled, DELIVERY_THROTTLED with Retry-After (seconds or an
 *   HTTP-date) as `details.retryAfterMs`;
 * - 5xx, 408, no answer within `timeoutMs`, no connection: failed, UNAVAILABLE (retriable);
 * - any other answer: refused whole, DELIVERY_REJECTED: sending the same
 *   batch again unchanged would not help.
 *
 * Every request carries `Idempotency-Key: <taskId>:<P|L>:<first uin>:<last uin>:<count>`
 * (P pushed online, L at login). A batch sent again, after a crash or a lost
 * answer, carries the same key and the same uins; each delivery inside it is
 * keyed (taskId, uin), which is what the receiver must deduplicate on.
 */
export class WebhookDeliveryGateway implements DeliveryGateway {
  private readonly stop = new AbortController();
  private readonly now: () => number;
  private readonly logger: Logger;

  constructor(private readonly options: WebhookGatewayOptions) {
    this.now = options.now ?? Date.now;
    this.logger = options.logger ?? noopLogger;
  }

  async deliver(delivery: Delivery): Promise<DeliveryResult> {
    if (this.stop.signal.aborted)
      throw new HeraldError(ErrorCodes.UNAVAILABLE, 'the webhook delivery gateway is closed');
    const n = delivery.uins.length;
    if (n === 0) return { rejected: [] };
    const batch: WebhookBatch = {
      taskId: delivery.taskId,
      atLogin: delivery.atLogin,
      displayAt: delivery.displayAt ?? null,
      content: delivery.content,
      uins: Array.from(delivery.uins),
      ...(delivery.contents === undefined ? {} : { contents: [...delivery.contents] }),
    };
    const key = `${delivery.taskId}:${delivery.atLogin ? 'L' : 'P'}:${delivery.uins[0]}:${delivery.uins[n - 1]}:${n}`;
    const details = { taskId: delivery.taskId, idempotencyKey: key };
    const what = `webhook ${this.options.url}, task ${delivery.taskId}'s batch of ${n}`;
    const answer = await this.post(JSON.stringify(batch), key);
    if ('unanswered' in answer)
      throw new HeraldError(ErrorCodes.UNAVAILABLE, `${what}: ${answer.unanswered}`, { retriable: true, details });
    const { status, text, retryAfter } = answer;
    const said = `HTTP ${status}${text ? ` ${text.slice(0, 200)}` : ''}`;
    if (status >= 200 && status < 300) return this.accepted(text, delivery.uins, what);
    if (status === 429) {
      const retryAfterMs = parseRetryAfter(retryAfter, this.now());
      throw new HeraldError(ErrorCodes.DELIVERY_THROTTLED, `${what}: throttled, ${said}`, {
        retriable: true,
        details: { ...details, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) },
      });
    }
    if (status === 408 || status >= 500)
      throw new HeraldError(ErrorCodes.UNAVAILABLE, `${what}: ${said}`, { retriable: true, details });
    throw new HeraldError(ErrorCodes.DELIVERY_REJECTED, `${what}: refused, ${said}`, { details });
  }

  async close(): Promise<void> {
    this.stop.abort();
  }

  private accepted(text: string, uins: Uint32Array, what: string): DeliveryResult {
    const parsed = parseRejections(text, uins);
    if ('rejected' in parsed) return parsed;
    this.logger.warn('webhook accepted a batch with an answer that is not a rejection list; taken as accepted whole', {
      batch: what,
      problem: parsed.malformed,
    });
    return { rejected: [] };
  }

  private async post(
    body: string,
    key: string,
  ): Promise<{ status: number; text: string; retryAfter: string | null } | { unanswered: string }> {
    const signal = AbortSignal.any([this.stop.signal, AbortSignal.timeout(this.options.timeoutMs)]);
    try {
      const response = await fetch(this.options.url, {
        method: 'POST',
        headers: { ...this.options.headers, 'content-type': 'application/json', 'idempotency-key': key },
        body,
        signal,
      });
      // Read (and so release) the body either way: a 2xx's names rejected recipients, a refusal's goes in the error.
      const text = await response.text().catch(() => '');
      return { status: response.status, text, retryAfter: response.headers.get('retry-after') };
    } catch (error) {
      const timedOut = (error as Error).name === 'TimeoutError';
      return {
        unanswered: timedOut
          ? `no answer within ${this.options.timeoutMs} ms`
          : String((error as Error).cause ?? error),
      };
    }
  }
}
