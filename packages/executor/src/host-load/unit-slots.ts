import { observeInbox, type PullChannel } from '@herald/transport';

/** A unit whose batches stopped coming this long ago no longer holds a slot (halted, or its stream died). */
export const UNIT_IDLE_MS = 30_000;

/** Counts the units an executor's inboxes carry: its sender slots in use, for its load reports. */
export interface UnitSlots {
  /** The inbox as the executor should read it: the same messages, counted on their way. */
  watch(inbox: PullChannel): PullChannel;
  /** Slots not held by a unit now, 0..slots. */
  free(): number;
}

/**
 * Watches the unit.batch messages on their way into the executor (leaving
 * the executor's own code alone), over every inbox given to `watch` (the
 * main one and the real-time one): a unit holds a slot from its first batch
 * seen to its last, or until it is quiet for UNIT_IDLE_MS. More units than
 * slots may run: slots are what the dispatchers are told, not a limit here.
 */
export function createUnitSlots(slots: number, now: () => number = () => performance.now()): UnitSlots {
  /** "taskId/unitNo" -> when its latest batch arrived. */
  const running = new Map<string, number>();
  return {
    watch(inbox) {
      return observeInbox(inbox, (message) => {
        if (message.kind !== 'unit.batch') return;
        const key = `${message.taskId}/${message.unitNo}`;
        if (message.last) running.delete(key);
        else running.set(key, now());
      });
    },
    free() {
      const at = now();
      for (const [key, seen] of running) if (at - seen > UNIT_IDLE_MS) running.delete(key);
      return Math.max(0, slots - running.size);
    },
  };
}
