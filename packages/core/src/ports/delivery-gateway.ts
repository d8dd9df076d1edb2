import type { TaskContent } from '../task/model';

export interface Delivery {
  taskId: number;
  /** Recipients of this batch, ascending. The idempotency key of each delivery is (taskId, uin). */
  uins: Uint32Array;
  content: TaskContent;
  /** True when the delivery comes from a user's offline list at login. */
  atLogin: boolean;
}

/**
 * Where pushes leave Herald: the push channel in production, a file in tests
 * and demos. `deliver` resolves once the batch is accepted downstream; a batch
 * may be delivered again after a crash, with the same idempotency keys, so a
 * downstream must treat (taskId, uin) as idempotent.
 */
export interface DeliveryGateway {
  deliver(delivery: Delivery): Promise<void>;
  close(): Promise<void>;
}
