import { TOPICS, type EventBus, type OutboxEvent, type TaskStore } from '@herald/core/ports';

/**
 * Relays the task store's outbox to the event bus: read the oldest unrelayed
 * events, publish them keyed by task id (so each task's events stay in
 * order), and only then mark them relayed. A failure anywhere leaves them
 * unmarked, so the next pass publishes them again: at least once, in order
 * per task, nothing skipped.
 */
export async function relayOutbox(store: TaskStore, bus: EventBus, batchSize: number): Promise<number> {
  const events = await store.readOutbox(0, batchSize);
  if (events.length === 0) return 0;
  await bus.publish(TOPICS.taskEvents, events.map(toBusEvent));
  await store.markRelayed(events[events.length - 1]!.id);
  return events.length;
}

function toBusEvent(event: OutboxEvent) {
  return {
    key: String(event.taskId),
    value: { id: event.id, taskId: event.taskId, from: event.from, to: event.to, version: event.version },
    timestamp: event.at,
  };
}
