import { systemClock, type Clock, type DeliveryGateway, type OfflineStore } from '@herald/core';
import { displayOf } from './display';
import type { TaskCache } from './task-cache';

export interface LoginDeliveryResult {
  delivered: number;
  expired: number;
}

/**
 * Delivery at login: walks the user's offline list in order, drops expired
 * entries, delivers the rest, and removes each entry only after its delivery
 * was accepted. A crash in between delivers that entry again (same
 * idempotency key, taskId + uin); it never loses it.
 */
export class LoginDelivery {
  constructor(
    private readonly offline: OfflineStore,
    private readonly gateway: DeliveryGateway,
    private readonly tasks: TaskCache,
    private readonly clock: Clock = systemClock,
  ) {}

  async deliver(uin: number): Promise<LoginDeliveryResult> {
    const result = { delivered: 0, expired: 0 };
    for (const entry of await this.offline.pending(uin)) {
      const task = await this.tasks.get(entry.taskId);
      if (task === undefined || entry.expiresAt <= this.clock.now()) {
        await this.offline.acknowledge(uin, [entry.taskId]);
        result.expired++;
        continue;
      }
      await this.gateway.deliver({ taskId: task.id, uins: Uint32Array.of(uin), content: task.content, atLogin: true, ...displayOf(task) });
      await this.offline.acknowledge(uin, [entry.taskId]);
      result.delivered++;
    }
    return result;
  }
}
