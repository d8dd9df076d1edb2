import type {
  ControllerLinks,
  DispatcherLinks,
  ExecutorLinks,
  InterfaceLinks,
  Open,
  SchedulerLinks,
} from '@herald/compose';
import type { HeraldConfig } from '@herald/core/config';
import type { Logger } from '@herald/core/ports';
import type { PromMeter } from '@herald/metrics';
import { createPull, createPush, inprocEndpoint, type PullChannel, type PushChannel } from '@herald/transport';

/** The sockets one tier opened: its links' `close` closes these, and only these. */
class SocketGroup {
  private readonly sockets: (PullChannel | PushChannel)[] = [];

  add<T extends PullChannel | PushChannel>(socket: T): T {
    this.sockets.push(socket);
    return socket;
  }

  close(): void {
    for (const socket of this.sockets) socket.close();
  }
}

/**
 * The embedded profile's transport: every tier in this process, over ZeroMQ
 * inproc sockets exactly as separate processes talk over tcp. Every inbox is
 * bound when this opens; each tier's links then connect its senders.
 */
export class InprocLinks {
  private readonly every = new SocketGroup();

  private constructor(
    private readonly config: HeraldConfig,
    /** Each inbox by name, bound at its endpoint. */
    private readonly inboxes: Map<string, PullChannel>,
  ) {
    for (const inbox of inboxes.values()) this.every.add(inbox);
  }

  /**
   * Binds every inbox: the scheduler's (executors' progress reports) and its
   * control inbox (commands and pre-processing results, apart from those
   * reports), the dispatcher's, and each executor's two (a real-time task's
   * batches overtake the normal batches queued in the first).
   */
  static async open(config: HeraldConfig, logger: Logger, meter: PromMeter): Promise<InprocLinks> {
    const names = [
      'scheduler',
      'scheduler.control',
      'dispatcher',
      ...config.executor.ids.flatMap((id) => [id, `${id}.realtime`]),
    ];
    const inboxes = new Map<string, PullChannel>();
    // inprocEndpoint makes a new, unique address each call: the bound one is read back from the inbox.
    for (const name of names)
      inboxes.set(
        name,
        await createPull({
          name,
          endpoint: inprocEndpoint(name),
          highWaterMark: config.transport.highWaterMark,
          meter,
          logger,
        }),
      );
    return new InprocLinks(config, inboxes);
  }

  scheduler(): Open<SchedulerLinks> {
    return async () => {
      const group = this.group('scheduler', 'scheduler.control');
      return {
        inbox: this.inbox('scheduler'),
        controlInbox: this.inbox('scheduler.control'),
        toDispatcher: await this.push(group, 'scheduler->dispatcher', this.endpointOf('dispatcher')),
        close: () => group.close(),
      };
    };
  }

  dispatcher(): Open<DispatcherLinks> {
    return async () => {
      const group = this.group('dispatcher');
      const toExecutor = new Map<string, PushChannel>();
      for (const id of this.config.executor.ids)
        toExecutor.set(id, await this.push(group, `dispatcher->${id}`, this.endpointOf(id)));
      const toRealtimeExecutor = new Map<string, PushChannel>();
      for (const id of this.config.executor.ids)
        toRealtimeExecutor.set(
          id,
          await this.push(group, `dispatcher->${id}.realtime`, this.endpointOf(`${id}.realtime`)),
        );
      const toScheduler = await this.push(group, 'dispatcher->scheduler', this.endpointOf('scheduler.control'));
      return {
        inbox: this.inbox('dispatcher'),
        toScheduler,
        toExecutor,
        toRealtimeExecutor,
        close: () => group.close(),
      };
    };
  }

  /** An executor's links; it reports its load to the dispatcher over the dispatcher's inbox, as in production. */
  executor(id: string): Open<ExecutorLinks> {
    return async () => {
      const group = this.group(id, `${id}.realtime`);
      const toDispatchers = await this.push(group, `${id}->dispatcher`, this.endpointOf('dispatcher'));
      const toScheduler = await this.push(group, `${id}->scheduler`, this.endpointOf('scheduler'));
      return {
        inbox: this.inbox(id),
        realtimeInbox: this.inbox(`${id}.realtime`),
        toScheduler,
        toDispatchers,
        close: () => group.close(),
      };
    };
  }

  interface(): Open<InterfaceLinks> {
    return async () => ({
      toScheduler: await this.push(this.every, 'interface->scheduler', this.endpointOf('scheduler.control')),
    });
  }

  /** The controller hands each campaign firing's task to the scheduler. */
  controller(): Open<ControllerLinks> {
    return async () => {
      const toScheduler = await this.push(this.every, 'controller->scheduler', this.endpointOf('scheduler.control'));
      return { submitTask: (taskId) => toScheduler.send({ kind: 'task.submitted', taskId }) };
    };
  }

  /** Closes every socket, whichever tier opened it (closing one twice is harmless). */
  close(): void {
    this.every.close();
  }

  private inbox(name: string): PullChannel {
    return this.inboxes.get(name)!;
  }

  private endpointOf(inbox: string): string {
    return this.inbox(inbox).endpoint;
  }

  /** A group holding the named inboxes, for one tier. */
  private group(...inboxes: string[]): SocketGroup {
    const group = new SocketGroup();
    for (const name of inboxes) group.add(this.inbox(name));
    return group;
  }

  private async push(group: SocketGroup, name: string, endpoint: string): Promise<PushChannel> {
    const channel = await createPush({
      name,
      endpoints: [endpoint],
      highWaterMark: this.config.transport.highWaterMark,
      // One build in one process: every message at its newest version (docs/operations.md, "Wire versions").
      sendNewest: true,
    });
    this.every.add(channel);
    return group.add(channel);
  }
}
