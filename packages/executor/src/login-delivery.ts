import type { LoginOutcomeKind } from '@herald/core/fate';
import {
  systemClock,
  type Clock,
  type DeliveryGateway,
  type DeliveryRecordLog,
  type OfflineStore,
  type UserAttributeLookup,
} from '@herald/core/ports';
import { termsOf } from './display';
import { Personaliser } from './personalise';
import { slotsLeftAt, type FrequencyControl } from './frequency-control';
import { holdsAtLogin } from './quiet-hours';
import type { TaskCache } from './task-cache';

export interface LoginDeliveryResult {
  delivered: number;
  expired: number;
  /** Entries dropped because the user had no released, unused slot left today (0 without frequency control). */
  overFrequency: number;
  /** Entries kept for a later login: inside their task's quiet hours, the account holding logins (docs/local-time.md). */
  held: number;
}

/**
 * Delivery at login: walks the user's offline list in order, drops expired
 * entries, delivers the rest, and removes entries only after their delivery
 * was accepted: all of a walk's in one write at its end (one acknowledge call
 * instead of one per entry: the walk is a login storm's hot path), or, when a
 * delivery fails, those before it. A crash in between delivers those entries
 * again (same idempotency key, taskId + uin); it never loses one.
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
 * key) and counts it then, if a slot is left (counting is idempotent by task,
 * so the counter does not count an entry delivered again twice).
 *
 * With a DeliveryRecordLog, what became of each settled entry (delivered,
 * expired, over frequency) is recorded before the entries are removed, so a
 * removed entry always has its outcome (docs/recipient-truth.md).
 */
export class LoginDelivery {
  constructor(
    private readonly offline: OfflineStore,
    private readonly gateway: DeliveryGateway,
    private readonly tasks: TaskCache,
    private readonly clock: Clock = systemClock,
    private readonly frequency?: FrequencyControl,
    private readonly personaliser: Personaliser = new Personaliser(),
    private readonly records?: DeliveryRecordLog,
    /** Users' attributes, for their `tz`: the login rule of quiet hours is judged in it (else the task's default zone). */
    private readonly zones?: UserAttributeLookup,
  ) {}

  async deliver(uin: number): Promise<LoginDeliveryResult> {
    const result = { delivered: 0, expired: 0, overFrequency: 0, held: 0 };
    /** Entries delivered or dropped so far: removed together, in one write, when the walk ends (or fails). */
    const settled: number[] = [];
    const outcomes: LoginOutcomeKind[] = [];
    const settle = (taskId: number, outcome: LoginOutcomeKind) => {
      settled.push(taskId);
      outcomes.push(outcome);
    };
    try {
      let slots: { day: number; left: number } | undefined;
      let zone: { tz: string | undefined } | undefined;
      for (const entry of await this.offline.pending(uin)) {
        const task = await this.tasks.get(entry.taskId);
        if (task === undefined || entry.expiresAt <= this.clock.now()) {
          settle(entry.taskId, 'expired');
          result.expired++;
          continue;
        }
        if (task.quietHours?.atLogin === 'hold') {
          zone ??= { tz: await this.zoneOf(uin) };
          // Inside the task's quiet hours and the account holds logins: the entry stays for a later login.
          if (holdsAtLogin(task, zone.tz, this.clock.now())) {
            result.held++;
            continue;
          }
        }
        if (this.frequency !== undefined) {
          slots ??= await this.slotsLeft(uin, this.frequency);
          if (slots.left <= 0) {
            settle(entry.taskId, 'over_frequency');
            result.overFrequency++;
            continue;
          }
        }
        const answer = await this.personaliser.deliver(
          this.gateway,
          {
            taskId: task.id,
            uins: Uint32Array.of(uin),
            content: task.content,
            atLogin: true,
            ...termsOf(task),
          },
          task.rollout,
        );
        // A dead letter (the channel rejected the user for good) is settled, never tried again, but not delivered.
        if ((answer?.rejected.length ?? 0) > 0) {
          settled.push(entry.taskId);
          continue;
        }
        if (this.frequency !== undefined && slots !== undefined) {
          await this.frequency.counter.consume([{ taskId: task.id, day: slots.day, uins: Uint32Array.of(uin) }]);
          slots.left--;
        }
        settle(entry.taskId, 'delivered');
        result.delivered++;
      }
    } catch (error) {
      // What was delivered before the failure is removed still; the failed entry and the rest stay for the next login.
      if (settled.length > 0) await this.settle(uin, settled, outcomes).catch(() => undefined);
      throw error;
    }
    if (settled.length > 0) await this.settle(uin, settled, outcomes);
    return result;
  }

  /** Records what became of the entries, then removes them: an outcome is never missing for a removed entry. */
  private async settle(uin: number, taskIds: number[], outcomes: LoginOutcomeKind[]): Promise<void> {
    if (this.records !== undefined) {
      const at = this.clock.now();
      await this.records.recordLogins(taskIds.map((taskId, i) => ({ taskId, uin, outcome: outcomes[i]!, at })));
    }
    await this.offline.acknowledge(uin, taskIds);
  }

  private async zoneOf(uin: number): Promise<string | undefined> {
    if (this.zones === undefined) return undefined;
    const [user] = await this.zones.getUsers([uin]);
    return user?.tz ?? undefined;
  }

  /** The user's released, unused slots at the start of the walk, and the local day (in their zone) they belong to. */
  private slotsLeft(uin: number, frequency: FrequencyControl): Promise<{ day: number; left: number }> {
    return slotsLeftAt(frequency, uin, this.clock.now());
  }
}
