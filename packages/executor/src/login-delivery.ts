import { budget, dayOf, systemClock, type Clock, type DeliveryGateway, type OfflineStore } from '@herald/core';
import { displayOf } from './display';
import { Personaliser } from './personalise';
import type { FrequencyControl } from './frequency-control';
import type { TaskCache } from './task-cache';

export interface LoginDeliveryResult {
  delivered: number;
  expired: number;
  /** Entries dropped because the user had no released, unused slot left today (0 without frequency control). */
  overFrequency: number;
}

/**
 * Delivery at login: walks the user's offline list in order, drops expired
 * entries, delivers the rest, and removes each entry only after its delivery
 * was accepted. A crash in between delivers that entry again (same
 * idempotency key, taskId + uin); it never loses it.
 *
 * With frequency control (docs/frequency.md) the user's budget is checked
 * again here: the dispatcher judged the entry on the day it was sent, but the
 * user receives it now, so it counts against today's. The walk reads the
 * user's count once (only when an entry is live), delivers oldest task first
 * while released, unused slots are left, counts each delivery, and drops the
 * entries beyond that, as the design says ("over-quota entries are
 * dropped"): kept for a later login instead, they would pile up for a user
 * who stays online all day, and land as a burst on the next day's budget.
 * Counting comes after the delivery and before the entry is removed, so a
 * delivery that did not happen is never counted; a crash in between leaves
 * the entry for the next walk, which delivers it again (same idempotency
 * key) and counts it then, if a slot is left (counting is idempotent by task).
 */
export class LoginDelivery {
  constructor(
    private readonly offline: OfflineStore,
    private readonly gateway: DeliveryGateway,
    private readonly tasks: TaskCache,
    private readonly clock: Clock = systemClock,
    private readonly frequency?: FrequencyControl,
    private readonly personaliser: Personaliser = new Personaliser(),
  ) {}

  async deliver(uin: number): Promise<LoginDeliveryResult> {
    const result = { delivered: 0, expired: 0, overFrequency: 0 };
    let slots: { day: number; left: number } | undefined;
    for (const entry of await this.offline.pending(uin)) {
      const task = await this.tasks.get(entry.taskId);
      if (task === undefined || entry.expiresAt <= this.clock.now()) {
        await this.offline.acknowledge(uin, [entry.taskId]);
        result.expired++;
        continue;
      }
      if (this.frequency !== undefined) {
        slots ??= await this.slotsLeft(uin, this.frequency);
        if (slots.left <= 0) {
          await this.offline.acknowledge(uin, [entry.taskId]);
          result.overFrequency++;
          continue;
        }
      }
      await this.personaliser.deliver(this.gateway, { taskId: task.id, uins: Uint32Array.of(uin), content: task.content, atLogin: true, ...displayOf(task) });
      if (this.frequency !== undefined && slots !== undefined) {
        await this.frequency.counter.consume([{ taskId: task.id, day: slots.day, uins: Uint32Array.of(uin) }]);
        slots.left--;
      }
      await this.offline.acknowledge(uin, [entry.taskId]);
      result.delivered++;
    }
    return result;
  }

  /** The user's released, unused slots at the start of the walk, and the local day they belong to. */
  private async slotsLeft(uin: number, { policy, counter }: FrequencyControl): Promise<{ day: number; left: number }> {
    const now = this.clock.now();
    const day = dayOf(policy, now);
    const [used] = await counter.used(Uint32Array.of(uin), day);
    return { day, left: budget(policy, uin, used!, now) };
  }
}
