/**
 * What the scheduler parts' unit tests share (not built into dist): a real
 * LevelTaskStore in a temp dir, a clock the test moves, a dispatcher channel
 * that records what it is sent, a logger and counters that record what they
 * are told, and a SchedulerContext over them.
 */
import { compileConfig } from '@herald/core/config';
import type { Counter, Meter } from '@herald/core/ports';
import type { Fence, NewTask, Task, TaskEvent } from '@herald/core/task';
import { LevelTaskStore } from '@herald/store-level';
import { makeTempDir, type TempDir } from '@herald/testing';
import type { Message, PushChannel } from '@herald/transport';
import { schedulerContext, type SchedulerContext } from './context';
import { storeRecorder } from './progress-recorder';
import { schedulerMetrics } from './scheduler-metrics';
import { TaskTable } from './task-table';

export const NOW = Date.UTC(2030, 0, 1);

export interface Harness {
  ctx: SchedulerContext;
  store: LevelTaskStore;
  tasks: TaskTable;
  /** What was sent to the dispatchers, in order. */
  sent: Message[];
  /** Log lines, as "level: message". */
  logs: string[];
  /** Counter totals by name. */
  counts: Map<string, number>;
  clock: { now(): number; advance(ms: number): void };
  close(): Promise<void>;
}

export async function openHarness(options: { slots?: number; unitStallMs?: number } = {}): Promise<Harness> {
  const dir: TempDir = await makeTempDir('herald-scheduler-part-');
  const store = await LevelTaskStore.open(dir.path);
  const config = compileConfig({
    scheduler: { id: 'scheduler-1', slots: options.slots ?? 1, tickMs: 20, unitStallMs: options.unitStallMs ?? 1_000 },
  });
  let now = NOW;
  const clock = { now: () => now, advance: (ms: number) => void (now += ms) };
  const sent: Message[] = [];
  const toDispatcher: PushChannel = { send: async (message) => void sent.push(message), close() {} };
  const logs: string[] = [];
  const log = (level: string) => (message: string) => void logs.push(`${level}: ${message}`);
  const counts = new Map<string, number>();
  const counter = (name: string): Counter => ({
    inc: (_labels, value = 1) => void counts.set(name, (counts.get(name) ?? 0) + value),
  });
  const meter: Meter = { counter, gauge: () => ({ set() {} }), histogram: () => ({ observe() {} }) };
  const tasks = new TaskTable(config.scheduler.unitStallMs);
  const ctx = schedulerContext({
    config,
    me: config.scheduler.id,
    store,
    toDispatcher,
    recorder: storeRecorder(store),
    clock,
    logger: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
    meter,
    metrics: schedulerMetrics(meter),
    tasks,
  });
  return {
    ctx,
    store,
    tasks,
    sent,
    logs,
    counts,
    clock,
    async close() {
      await store.close();
      await dir.remove();
    },
  };
}

export function newTask(overrides: Partial<NewTask> = {}): NewTask {
  return {
    accountId: 'acme',
    listId: 'l_1',
    content: { body: 'x' },
    contentCrc: 1,
    priority: 'normal',
    sendAt: NOW,
    expiresAt: NOW + 3_600_000,
    listCount: 10,
    ...overrides,
  };
}

const fence = (task: Task): Fence => ({ epoch: task.epoch });

/**
 * A task created and claimed by this scheduler (held in the table), then
 * moved through `events` in the store; with 'preprocessed' among them it gets
 * a filtered list and `unitCount` units of 10 recipients on executor e1.
 */
export async function ownedTask(
  h: Harness,
  events: readonly TaskEvent[] = [],
  overrides: Partial<NewTask> = {},
  unitCount = 1,
): Promise<Task> {
  const created = await h.store.createTask(newTask(overrides), h.clock.now());
  let task = await h.store.claimTask(created.id, 'scheduler-1', h.clock.now());
  for (const event of events) {
    const patch =
      event === 'preprocessed'
        ? { filteredListId: `f_${task.id}`, report: { total: 10 * unitCount, kept: 10 * unitCount, units: unitCount } }
        : {};
    task = await h.store.transitionTask(task.id, fence(task), event, patch, h.clock.now());
    if (event === 'preprocessed') {
      const units = Array.from({ length: unitCount }, (_, unitNo) => ({
        unitNo,
        start: unitNo * 10,
        end: unitNo * 10 + 10,
        executorId: 'e1',
      }));
      await h.store.putUnits(task.id, fence(task), units, h.clock.now());
    }
  }
  h.tasks.hold(task);
  return task;
}

/** Messages of one kind sent for one task. */
export function sentOf<K extends Message['kind']>(
  h: Harness,
  kind: K,
  taskId: number,
): Extract<Message, { kind: K }>[] {
  return h.sent.filter(
    (m): m is Extract<Message, { kind: K }> => m.kind === kind && 'taskId' in m && m.taskId === taskId,
  );
}

/** CREATED -> SENDING, with units. */
export const TO_SENDING: readonly TaskEvent[] = ['enqueue', 'admit', 'preprocessed', 'dispatched'];
