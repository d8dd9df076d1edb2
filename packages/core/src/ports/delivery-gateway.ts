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
 */
export interface DeliveryGateway {
  deliver(delivery: Delivery): Promise<void>;
  close(): Promise<void>;
}
