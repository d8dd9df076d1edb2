import type { AptaMessage } from '@herald/core/apta';
import type { FilterReason } from '@herald/core/task';
import type { HostLoad } from '@herald/core/dispatch';

/**
 * Every message that crosses a ZeroMQ socket between tiers. Each kind has its
 * own module under messages/ with a versioned encoder/decoder and its byte
 * grammar in a header comment.
 *
 * Who sends what:
 *   interface  -> scheduler   task.submitted, task.command
 *   scheduler  -> dispatcher  preprocess.request, unit.run, task.halt
 *   dispatcher -> scheduler   preprocess.result
 *                             unit.replan  (a unit.run named an executor that stopped reporting: move it)
 *   dispatcher -> executor    unit.batch   (recipients travel here, in batches)
 *                             task.halt    (forwarded on the real-time link when it closes its epoch)
 *   executor   -> scheduler   unit.progress
 *   presence   -> executor    user.logins  (users who came online: walk their offline lists)
 *   member    <-> member      apta         (membership between schedulers and interfaces: docs/apta.md)
 *   executor   -> dispatcher  host.load    (every load.reportIntervalMs: its host's load and free sender slots)
 *   executor   -> executor    channel.throttled (its channel throttled a send: the others hold too)
 *                             channel.demand    (every load.reportIntervalMs: what it has waiting on its channel)
 */

export interface TaskSubmitted {
  kind: 'task.submitted';
  taskId: number;
}

export type TaskCommandName = 'cancel' | 'pause' | 'resume';

export interface TaskCommand {
  kind: 'task.command';
  taskId: number;
  command: TaskCommandName;
}

export interface PreprocessRequest {
  kind: 'preprocess.request';
  taskId: number;
  epoch: number;
  listId: string;
  accountId: string;
  contentCrc: number;
  /** Recipients per second the task asks for (Task.speed); 0: none, the dispatcher computes one from global load. */
  speed: number;
}

export interface PlannedUnit {
  start: number;
  end: number;
  executorId: string;
}

/** One release of a local-time task, as pre-processing planned it (core task/model.ts LocalGroup). */
export interface PlannedGroup {
  offsetMinutes: number;
  releaseAt: number;
  start: number;
  end: number;
  skipped: boolean;
}

export type PreprocessResult =
  | {
      kind: 'preprocess.result';
      ok: true;
      taskId: number;
      epoch: number;
      filteredListId: string;
      total: number;
      kept: number;
      removed: Partial<Record<FilterReason, number>>;
      units: PlannedUnit[];
      /**
       * A local-time task's groups (docs/local-time.md), in the order of the
       * delivery-order list; absent for any other task (and from version 1 frames).
       */
      groups?: PlannedGroup[];
      /**
       * A canary task (docs/rollouts.md): positions [0, sample) of the
       * filtered list are its sample, and no unit crosses that boundary.
       * Absent (or from a version 1 frame): no canary.
       */
      sample?: number;
    }
  | {
      kind: 'preprocess.result';
      ok: false;
      taskId: number;
      epoch: number;
      errorCode: string;
      message: string;
    };

export interface UnitRun {
  kind: 'unit.run';
  taskId: number;
  epoch: number;
  unitNo: number;
  filteredListId: string;
  /** Unit range [start, end) in the filtered list. */
  start: number;
  end: number;
  /** Resume point: stream [from, end). from == start for a fresh unit. */
  from: number;
  executorId: string;
  /** The task is real-time: its batches go to the executor's real-time inbox, ahead of normal work queued there. */
  realtime: boolean;
}

/**
 * The dispatcher's answer to a unit.run naming an executor whose load reports
 * stopped: it streamed nothing, and proposes a live executor for the unit
 * (dispatcher/src/replan.ts). The scheduler decides: it moves the unit only
 * if it still runs on `from` under `epoch`.
 */
export interface UnitReplan {
  kind: 'unit.replan';
  taskId: number;
  epoch: number;
  unitNo: number;
  /** The silent executor the unit.run named. */
  from: string;
  /** The live executor proposed. */
  to: string;
}

export interface TaskHalt {
  kind: 'task.halt';
  taskId: number;
  epoch: number;
  /**
   * Present (true) when the owner sends no unit.run for the task under this
   * epoch again: a resume of the task comes under a new epoch (the scheduler
   * claims the task again first). Its batches still on the way under this
   * epoch can then be dropped unstarted, which the dispatcher has executors do
   * (docs/scheduling.md, "The bound"). Absent: the halt stops the streams only.
   */
  closesEpoch?: true;
}

export interface UnitBatch {
  kind: 'unit.batch';
  taskId: number;
  epoch: number;
  unitNo: number;
  /** Index in the filtered list of this batch's first uin. */
  offset: number;
  /** True on the unit's last batch. */
  last: boolean;
  uins: Uint32Array;
}

export interface UnitProgressMessage {
  kind: 'unit.progress';
  taskId: number;
  epoch: number;
  unitNo: number;
  /** The batch covered [from, to) of the filtered list. */
  from: number;
  to: number;
  delivered: number;
  offline: number;
  /** True when `to` is the unit's end. */
  done: boolean;
  /**
   * Recipients of the batch the channel rejected for good, by its reason
   * (version 2; absent in version 1: none). Not in `delivered`.
   */
  deadLetters?: Record<string, number>;
  /**
   * The delivery channel holds sending (version 2; absent: it sends). A
   * report with `from === to` carries only this: the batch in hand waits.
   */
  channel?: { state: 'throttled' | 'unavailable'; reason: string };
  /** The channel refused the batch whole, for this reason: the task fails (version 2; absent: it did not). */
  refused?: string;
  /**
   * The executor held the batch for the task's quiet hours, until this
   * instant (epoch ms; version 3, absent: not held). Such a report has
   * `from === to`, the held batch's first position: nothing of it was sent.
   */
  quietUntil?: number;
}

export interface UserLogins {
  kind: 'user.logins';
  uins: Uint32Array;
}

/** One APTA membership message (hello, hello.reply, lsr.request, lsr.reply), as core's state machine takes it. */
export interface AptaEnvelope {
  kind: 'apta';
  message: AptaMessage;
}

/** An executor host's load report (core's HostLoad), planned on by the dispatchers. */
export interface HostLoadMessage {
  kind: 'host.load';
  report: HostLoad;
}

/** An executor's delivery channel throttled a send: every other executor holds that channel for `holdMs` too. */
export interface ChannelThrottled {
  kind: 'channel.throttled';
  executorId: string;
  channel: string;
  holdMs: number;
  detail: string;
}

/** What an executor has waiting on its channel: the executors split the channel's budget by it. */
export interface ChannelDemand {
  kind: 'channel.demand';
  executorId: string;
  channel: string;
  demand: number;
  /** Recipients per second the executor sends at through the channel (v2); absent from a v1 frame: not known. */
  rate?: number;
}

export type Message =
  | TaskSubmitted
  | TaskCommand
  | PreprocessRequest
  | PreprocessResult
  | UnitRun
  | TaskHalt
  | UnitBatch
  | UnitProgressMessage
  | UserLogins
  | AptaEnvelope
  | HostLoadMessage
  | UnitReplan
  | ChannelThrottled
  | ChannelDemand;

export type MessageKind = Message['kind'];
