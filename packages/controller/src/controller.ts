import {
  noopLogger,
  noopMeter,
  systemClock,
  type AccountStore,
  type CampaignStore,
  type Clock,
  type Coordinator,
  type EventBus,
  type Logger,
  type Meter,
  type TaskStore,
} from '@herald/core/ports';
import type { AccountsConfig } from '@herald/core/config';
import { runCampaignPass } from './campaign-pass';
import { syncCheckpoints } from './checkpoint-sync';
import { nodeCronWakeups, type CampaignWakeups } from './cron-wakeups';
import { relayOutbox } from './outbox-relay';

export interface ControllerOptions {
  /** This candidate's id in the controller election. */
  id: string;
  /** Pause between passes while leader, ms. Default 200. */
  intervalMs?: number;
  /**
   * Least time between two moves of the checkpoints into the task store, ms.
   * Default 1000. Each move is a ZooKeeper read and delete and a MySQL
   * transaction per unit that moved; every pass (200 ms) doing it cost a
   * 10^7 broadcast as much ZooKeeper work as the schedulers' own checkpoints.
   * The store lags the coordinator by at most this while a unit sends; the
   * scheduler settles a unit into the store itself at each state change.
   */
  checkpointSyncMs?: number;
  /** Outbox events per relay pass. Default 500. */
  relayBatch?: number;
  /** Cron campaigns (docs/campaigns.md); used when `deps.campaigns` is given. */
  campaigns?: {
    /** campaigns.misfireGraceMs. */
    misfireGraceMs: number;
    /** campaigns.scanIntervalMs: the longest time between two reads of the campaigns. */
    scanIntervalMs: number;
    /** tasks.defaultTtlMs: a firing's task lifetime when its template names none. */
    defaultTtlMs: number;
  };
}

export interface ControllerDeps {
  coordinator: Coordinator;
  store: TaskStore;
  /** Where the outbox is relayed. Without one (the embedded profile) the outbox is not relayed. */
  bus?: EventBus;
  /** Cron campaigns to fire while leading. */
  campaigns?: CampaignStore;
  /** Hands a campaign's new task to its scheduler; without it the scheduler's recovery sweep adopts the task. */
  submitTask?: (taskId: number) => Promise<void>;
  /** B-side quotas a firing takes room in (docs/account-quotas.md); without it campaigns have none. */
  quota?: { accounts: AccountStore; policy: AccountsConfig };
  /** What wakes the leader at fire times. Default: node-cron (nodeCronWakeups). */
  wakeups?: (wake: () => void, logger: Logger) => CampaignWakeups;
  clock?: Clock;
  logger?: Logger;
  meter?: Meter;
}

export interface Controller {
  isLeader(): boolean;
  /** Runs one pass now (relay, sync, due campaigns) if leader and not stopped, after the pass under way; tests and drains use it. */
  runOnce(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The controller: one elected leader among the controller processes. While
 * it relays the outbox to the event bus every `intervalMs`, moves confirmed
 * checkpoints from the coordinator into the task store every `checkpointSyncMs`,
 * and fires cron campaigns (campaign-pass.ts). The campaigns are read when
 * node-cron wakes the leader at a fire time, when core's next due time (from
 * the last read, on the injected clock) has come, and at least every
 * `campaigns.scanIntervalMs`; each part of a pass fails on its own (a broker
 * outage stalls the relay, not the campaigns). A failed pass is logged and
 * retried on the next one; losing leadership stops the passes, winning it
 * starts them. One pass runs at a time: a tick during a slow pass is skipped,
 * and `stop()` waits only for the pass under way.
 */
export async function startController(options: ControllerOptions, deps: ControllerDeps): Promise<Controller> {
  const clock = deps.clock ?? systemClock;
  const logger = deps.logger ?? noopLogger;
  const meter = deps.meter ?? noopMeter;
  const relayed = meter.counter(
    'herald_controller_outbox_relayed_total',
    'Task events relayed from the outbox to the event bus',
  );
  const synced = meter.counter(
    'herald_controller_checkpoints_applied_total',
    'Unit checkpoints moved from the coordinator into the task store',
  );
  const failures = meter.counter(
    'herald_controller_pass_failures_total',
    'Controller passes that failed (retried next pass)',
  );
  const firings = meter.counter(
    'herald_controller_campaign_firings_total',
    'Campaign scheduled times handled by the leader, by outcome (fired, missed)',
    ['outcome'],
  );
  const intervalMs = options.intervalMs ?? 200;
  const relayBatch = options.relayBatch ?? 500;
  const checkpointSyncMs = options.checkpointSyncMs ?? 1000;
  // Real time, as the passes' timer: an injected clock may stand still in a test.
  let nextSyncAt = 0;

  const election = await deps.coordinator.elect('controller', options.id);
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  // Campaigns: read again once the clock passes nextScanAt, or when a wake-up came.
  let nextScanAt = 0;
  let woken = false;
  const wakeups =
    deps.campaigns === undefined ? undefined : (deps.wakeups ?? nodeCronWakeups)(() => (woken = true), logger);

  async function part(name: string, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      failures.inc();
      logger.warn('controller pass failed; retrying next pass', { part: name, error: String(error) });
    }
  }

  /** One pass; `everything`: move the checkpoints too however recently they were (an explicit runOnce). */
  async function pass(everything: boolean): Promise<void> {
    if (stopped || !election.isLeader()) return;
    const bus = deps.bus;
    if (bus !== undefined) {
      await part('relay', async () => {
        let n: number;
        do {
          n = await relayOutbox(deps.store, bus, relayBatch);
          relayed.inc(undefined, n);
        } while (n === relayBatch && election.isLeader() && !stopped);
      });
    }
    if (everything || performance.now() >= nextSyncAt) {
      nextSyncAt = performance.now() + checkpointSyncMs;
      await part('checkpoints', async () => {
        const { applied } = await syncCheckpoints(deps.coordinator, deps.store, clock.now(), logger);
        synced.inc(undefined, applied);
      });
    }
    const campaigns = deps.campaigns;
    const settings = options.campaigns;
    if (campaigns === undefined || settings === undefined || stopped || !election.isLeader()) return;
    const now = clock.now();
    if (!woken && now < nextScanAt) return;
    woken = false;
    // A failed read is retried on the next pass, not a whole scan interval later.
    nextScanAt = 0;
    await part('campaigns', async () => {
      const result = await runCampaignPass(
        {
          campaigns,
          store: deps.store,
          logger,
          firings,
          submit: deps.submitTask,
          ...(deps.quota ? { quota: deps.quota } : {}),
          isLeader: () => election.isLeader() && !stopped,
        },
        settings,
        now,
      );
      nextScanAt = Math.min(now + settings.scanIntervalMs, result.nextDueAt ?? Infinity);
      if (election.isLeader() && !stopped) wakeups?.sync(result.campaigns);
    });
  }

  const runPass = (everything: boolean) => (running = running.then(() => pass(everything)));
  // A tick that comes while a pass is under way (a publish waiting out a broker outage can take
  // many intervals) is skipped, not queued: queued passes would pile up for the whole outage,
  // and stop() would wait for every one of them.
  let ticking = false;
  const timer = setInterval(() => {
    if (stopped || ticking) return;
    ticking = true;
    void runPass(false).finally(() => (ticking = false));
  }, intervalMs);
  timer.unref();
  election.onChange((leader) => {
    logger.info(leader ? 'controller leads' : 'controller no longer leads', { id: options.id });
    // A new leader reads the campaigns at its first pass; one that lost the lead stops its wake-ups.
    nextScanAt = 0;
    if (!leader) wakeups?.clear();
  });

  return {
    isLeader: () => election.isLeader(),
    runOnce: () => runPass(true),
    async stop() {
      stopped = true;
      clearInterval(timer);
      wakeups?.clear();
      await running;
      await election.resign();
    },
  };
}
