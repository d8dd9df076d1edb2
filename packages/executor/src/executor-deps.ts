import type {
  Clock,
  ConfirmedBatchLog,
  DeliveryGateway,
  DeliveryRecordLog,
  EventBus,
  Logger,
  Meter,
  OfflineStore,
  TaskStore,
  UserAttributeLookup,
} from '@herald/core/ports';
import type { OnlineView } from '@herald/core/presence';
import type { PullChannel, PushChannel } from '@herald/transport';
import type { FrequencyControl } from './frequency-control';
import type { LoginQueue } from './login-queue';
import type { ChannelHoldSource } from './paced-gateway';
import type { PacingOptions } from './pacer';
import type { Personaliser } from './personalise';
import type { TaskCache } from './task-cache';

export interface ExecutorDeps {
  id: string;
  /** unit.batch messages from dispatchers; user.logins from the host's presence agent. Closing it stops the executor. */
  inbox: PullChannel;
  /**
   * Optional: a link that carries only real-time tasks' batches, so that they
   * never queue in ZeroMQ behind normal ones (docs/scheduling.md), and the
   * halts dispatchers forward. Every batch read here waits in the real-time
   * lane. Close it too when stopping: its reader ends at its next message or
   * when it closes.
   */
  realtimeInbox?: PullChannel;
  /** Messages each inbox's reader holds ahead of the worker at most. Default PREFETCH. */
  prefetch?: number;
  /** unit.progress reports to the scheduler. */
  toScheduler: PushChannel;
  tasks: TaskCache;
  online: OnlineView;
  gateway: DeliveryGateway;
  offline: OfflineStore;
  /**
   * The delivery channel's hold (a PacedDeliveryGateway): while it holds
   * the batch in hand, the executor tells the scheduler so, in a progress
   * report covering no recipients, and the task's report shows it
   * (docs/delivery.md). Without it nothing is told.
   */
  channel?: ChannelHoldSource;
  /**
   * How often a hold's report is told again while it lasts. Keep it well
   * under the scheduler's unitStallMs: the repeats are what keeps a held
   * executor's units from being run again (compose gives a third of it).
   * Default: HOLD_REPORT_EVERY_MS.
   */
  holdReportEveryMs?: number;
  /** Walks offline lists for the user.logins the inbox brings. Without it, user.logins messages are ignored. */
  logins?: LoginQueue;
  /** Where every confirmed batch is reported (production: Kafka's reports topic), for cross-site recovery and audit. */
  reports?: EventBus;
  /**
   * The batches this executor confirmed, so one that comes again (its unit run
   * again from an older checkpoint) is reported, not delivered twice. Default:
   * a MemoryConfirmedBatchLog, forgotten when the process ends; production
   * gives a LevelDB log, so a restarted executor remembers too.
   */
  confirmed?: ConfirmedBatchLog;
  /** Where each confirmed batch's online and offline positions are recorded (docs/recipient-truth.md). Default: nowhere. */
  records?: DeliveryRecordLog;
  /**
   * With frequency control (`frequency.enabled`): each batch's online users
   * are counted for the task on the local day of delivery, as part of
   * confirming the batch (docs/frequency.md). Offline users count when their
   * entry is delivered at login.
   */
  frequency?: FrequencyControl;
  /**
   * Users' attributes, for their `tz`: a task whose quiet hours say during
   * 'offline' queues the online users inside them to their offline lists
   * (docs/local-time.md "Quiet hours"). Without it, judged in the task's
   * default zone.
   */
  zones?: UserAttributeLookup;
  /**
   * Renders template tasks per recipient (docs/delivery.md, "Personalised
   * content"). Default: one without a user-attributes store (defaults only).
   */
  personaliser?: Personaliser;
  /**
   * Optional: paces each task to its speed (pacer.ts): a batch of a task
   * with a speed is delivered once its task's token bucket holds its
   * recipients. The worker waits meanwhile, and the normal batches behind
   * it wait too (an executor sends one unit's batches at a time, the way a
   * sender process of the seed's design walks its unit), but real-time
   * batches that arrive are handled during the wait of a normal one. Time
   * spent waiting is not counted busy. Without it nothing is paced.
   */
  pacing?: PacingOptions;
  /**
   * Where the units' assignments are read: with it, a batch of a unit the
   * store names another executor for (moved off this one while it was
   * silent) is dropped before delivery, neither delivered nor reported
   * (unit-assignments.ts). Production gives the task store; without it every
   * batch counts as this executor's.
   */
  assignments?: Pick<TaskStore, 'listUnits'>;
  /** Default: the system clock. Decides the local day deliveries count on, and what the pacing's buckets hold. */
  clock?: Clock;
  logger?: Logger;
  meter?: Meter;
}

export interface Executor {
  readonly done: Promise<void>;
}
