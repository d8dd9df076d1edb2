import { noopLogger, noopMeter, systemClock, type Clock, type Coordinator, type EventBus, type Logger, type Meter, type TaskStore } from '@herald/core';
import { syncCheckpoints } from './checkpoint-sync';
import { relayOutbox } from './outbox-relay';

export interface ControllerOptions {
  /** This candidate's id in the controller election. */
  id: string;
  /** Pause between passes while leader, ms. Default 200. */
  intervalMs?: number;
  /** Outbox events per relay pass. Default 500. */
  relayBatch?: number;
}

export interface ControllerDeps {
  coordinator: Coordinator;
  store: TaskStore;
  bus: EventBus;
  clock?: Clock;
  logger?: Logger;
  meter?: Meter;
}

export interface Controller {
  isLeader(): boolean;
  /** Runs one pass now (relay + sync) if leader and not stopped, after the pass under way; tests and drains use it. */
  runOnce(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The controller: one elected leader among the controller processes. While
 * it leads it relays the outbox to the event bus and moves confirmed
 * checkpoints from the coordinator into the task store, every `intervalMs`.
 * Cron campaigns join it with the console issue. A failed pass is logged and
 * retried on the next one; losing leadership stops the passes, winning it
 * starts them. One pass runs at a time: a tick during a slow pass is skipped,
 * and `stop()` waits only for the pass under way.
 */
export async function startController(options: ControllerOptions, deps: ControllerDeps): Promise<Controller> {
  const clock = deps.clock ?? systemClock;
  const logger = deps.logger ?? noopLogger;
  const meter = deps.meter ?? noopMeter;
  const relayed = meter.counter('herald_controller_outbox_relayed_total', 'Task events relayed from the outbox to the event bus');
  const synced = meter.counter('herald_controller_checkpoints_applied_total', 'Unit checkpoints moved from the coordinator into the task store');
  const failures = meter.counter('herald_controller_pass_failures_total', 'Controller passes that failed (retried next pass)');
  const intervalMs = options.intervalMs ?? 200;
  const relayBatch = options.relayBatch ?? 500;

  const election = await deps.coordinator.elect('controller', options.id);
  let running: Promise<void> = Promise.resolve();
  let stopped = false;

  async function pass(): Promise<void> {
    if (stopped || !election.isLeader()) return;
    try {
      let n: number;
      do {
        n = await relayOutbox(deps.store, deps.bus, relayBatch);
        relayed.inc(undefined, n);
      } while (n === relayBatch && election.isLeader() && !stopped);
      const { applied } = await syncCheckpoints(deps.coordinator, deps.store, clock.now(), logger);
      synced.inc(undefined, applied);
    } catch (error) {
      failures.inc();
      logger.warn('controller pass failed; retrying next pass', { error: String(error) });
    }
  }

  const runOnce = () => (running = running.then(pass));
  // A tick that comes while a pass is under way (a publish waiting out a broker outage can take
  // many intervals) is skipped, not queued: queued passes would pile up for the whole outage,
  // and stop() would wait for every one of them.
  let ticking = false;
  const timer = setInterval(() => {
    if (stopped || ticking) return;
    ticking = true;
    void runOnce().finally(() => (ticking = false));
  }, intervalMs);
  timer.unref();
  election.onChange((leader) => logger.info(leader ? 'controller leads' : 'controller no longer leads', { id: options.id }));

  return {
    isLeader: () => election.isLeader(),
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
      await election.resign();
    },
  };
}
