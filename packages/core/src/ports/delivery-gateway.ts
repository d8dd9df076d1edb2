import type { TaskContent } from '../task/model';

export interface Delivery {
  taskId: number;
  /** Recipients of this batch, ascending. The idempotency key of each delivery is (taskId, uin). */
  uins: Uint32Array;
  content: TaskContent;
  /**
   * Personalised content (a template task, docs/delivery.md): what each
   * recipient receives, `contents[i]` for `uins[i]`, rendered from `content`
   * (the template). Absent: every recipient receives `content`.
   */
  contents?: readonly TaskContent[];
  /** True when the delivery comes from a user's offline list at login. */
  atLogin: boolean;
  /** Pre-delivery: when the client shows the message (epoch ms); absent: on arrival. A time already past means now. */
  displayAt?: number;
  /**
   * When the task expires (epoch ms): a channel that can tell the device's
   * push service how long to keep an undelivered message (FCM's ttl, APNs'
   * apns-expiration) does. Absent: the channel's default.
   */
  expiresAt?: number;
  /** The task's collapse key: a channel that can tell a device to show only the newest message of a key (apns-collapse-id, FCM's collapse_key) does. */
  collapseKey?: string;
}

/** A recipient the channel refused for good (bad device, unknown user): a dead letter, never sent again. */
export interface RecipientRejection {
  uin: number;
  /** The channel's reason, a short token (`unregistered`, `bad_device_token`, ...): dead letters are counted by it. */
  reason: string;
}

/**
 * What a resolved `deliver` tells: the batch was accepted, less the
 * recipients in `rejected` (each one of the batch's uins, at most once).
 * Void, or an empty list: every recipient accepted.
 */
export interface DeliveryResult {
  rejected: readonly RecipientRejection[];
  /**
   * Set when the channel refused the batch whole (the payload, not a
   * recipient): its reason. Every recipient is then in `rejected` too, and
   * the task fails fast with it (docs/delivery.md, "Dead letters").
   */
  refused?: string;
}

/**
 * Where pushes leave Herald: the push channel in production, a file in tests
 * and demos. `deliver` resolves once the batch is accepted downstream; a batch
 * may be delivered again after a crash, with the same idempotency keys, so a
 * downstream must treat (taskId, uin) as idempotent.
 *
 * Contract, checked by the DeliveryGateway conformance suite for every
 * adapter: what a resolved `deliver` accepted (uins, content, each
 * recipient's own content when personalised, display time, atLogin) reaches downstream whole; a batch delivered twice reaches it with
 * the same keys; `deliver` rejects with a HeraldError when downstream does
 * not accept the batch (retriable when trying again may help), and a
 * rejected batch counts as not delivered; after `close` it rejects.
 *
 * The outcomes (docs/delivery.md, "Outcomes"), which the channel's pacing
 * (executor `PacedDeliveryGateway`) acts on:
 * - accepted: `deliver` resolves, with the recipients refused for good in
 *   `rejected` (dead letters);
 * - throttled: rejects DELIVERY_THROTTLED (retriable), with
 *   `details.retryAfterMs` when the channel said how long to wait;
 * - failed: rejects UNAVAILABLE (retriable): no answer in time, 5xx, no connection;
 * - refused whole: rejects DELIVERY_REJECTED (not retriable): the channel
 *   refused the batch itself (e.g. 400 on the payload).
 * An adapter tries each batch once: pacing and retries are the caller's.
 */
export interface DeliveryGateway {
  deliver(delivery: Delivery): Promise<DeliveryResult | void>;
  close(): Promise<void>;
}
