import type { HashRing } from '@herald/core/ring';
import type { PullChannel, PushChannel } from '@herald/transport';

/**
 * The transport between tiers as one tier sees it: inproc sockets in the
 * embedded profile, tcp with CURVE in production. Each tier's links are an
 * adapter like its stores (opened with `Open<...Links>`), so a builder never
 * knows which. Every inbox is already bound when the links are handed over.
 */
export interface TierLinks {
  /** Closes this tier's sockets: a send blocked on a peer that is gone then rejects, so the tier can end. */
  close(): void;
}

/** Who owns which task: the ring a scheduler owns by (APTA's agreed ring in production). */
export interface OwnershipRing {
  current(): HashRing;
  /** Whether this process's view of the ring is current: a scheduler adopts tasks only then. */
  isCurrent(): boolean;
}

export interface SchedulerLinks extends TierLinks {
  /** unit.progress from executors (and everything else where there is no control inbox). */
  inbox: PullChannel;
  /** task.submitted, task.command, preprocess.result, apart from the executors' reports. */
  controlInbox?: PullChannel;
  toDispatcher: PushChannel;
  /** Default: this scheduler alone, owning every task. */
  ring?: OwnershipRing;
}

export interface DispatcherLinks extends TierLinks {
  inbox: PullChannel;
  /** To the owning scheduler's control inbox. */
  toScheduler: PushChannel;
  toExecutor: Map<string, PushChannel>;
  /** The executors' real-time inboxes, where they have one. */
  toRealtimeExecutor: Map<string, PushChannel>;
}

export interface ExecutorLinks extends TierLinks {
  inbox: PullChannel;
  /** Real-time tasks' batches, where this executor has a second inbox for them. */
  realtimeInbox?: PullChannel;
  toScheduler: PushChannel;
  /** host.load reports to every dispatcher (docs/scheduling.md, "Load-aware dispatch"). */
  toDispatchers: PushChannel;
}

export interface InterfaceLinks {
  /** To the owning scheduler's control inbox. */
  toScheduler: PushChannel;
}

export interface ControllerLinks {
  /** Hands a campaign firing's task to its scheduler; without it the owner's recovery sweep adopts the task. */
  submitTask?: (taskId: number) => Promise<void>;
}
