import { HashRing } from '@herald/core/ring';
import { isHeraldError } from '@herald/core';
import type { HeraldConfig, ProductionConfig, TopologyMember } from '@herald/core/config';
import type { Logger, Meter } from '@herald/core/ports';
import { createPull, createPush, type Message, type PullChannel, type PushChannel } from '@herald/transport';
import { staticSchedulerRing } from './cluster-ring';
import { allowedKeys, readKeyPair, readPublicKey } from './keys';

/** How long a message to a scheduler may wait for room in its queue before it is routed again by the current ring. */
const SCHEDULER_SEND_TIMEOUT_MS = 1000;

/**
 * The ZeroMQ links of one production process: its inbox (a CURVE server
 * admitting the cluster's keys) and CURVE client links to the processes it
 * sends to, plus the routing the tiers need:
 *   - to schedulers: by the ring owner of the message's task (consistent hashing)
 *   - to dispatchers: task.halt to every dispatcher, the rest round-robin;
 *     host.load to every dispatcher, never waiting on one (toEveryDispatcher)
 *   - to executors: by executor id
 */
export class ProcessLinks {
  private readonly pushes: PushChannel[] = [];
  private readonly inboxes: PullChannel[] = [];
  private rr = 0;
  private staticRing: HashRing | undefined;

  private constructor(
    private readonly config: HeraldConfig,
    private readonly production: ProductionConfig,
    readonly id: string,
    private readonly keys: { publicKey: string; secretKey: string },
    private readonly allowed: string[],
    private readonly logger: Logger,
    private readonly meter: Meter,
  ) {}

  static async open(config: HeraldConfig, id: string, logger: Logger, meter: Meter): Promise<ProcessLinks> {
    const production = config.production!;
    const keys = await readKeyPair(production.curve.keysDir, id);
    return new ProcessLinks(config, production, id, keys, await allowedKeys(production.curve.keysDir), logger, meter);
  }

  async bindInbox(endpoint: string, name = this.id): Promise<PullChannel> {
    const inbox = await createPull({
      name,
      endpoint,
      highWaterMark: this.config.transport.highWaterMark,
      meter: this.meter,
      logger: this.logger,
      curve: {
        serverPublicKey: this.keys.publicKey,
        serverSecretKey: this.keys.secretKey,
        allowedClientKeys: this.allowed,
      },
    });
    this.inboxes.push(inbox);
    return inbox;
  }

  async connect(member: TopologyMember, sendTimeoutMs?: number): Promise<PushChannel> {
    const channel = await createPush({
      name: `${this.id}->${member.id}`,
      endpoints: [member.endpoint],
      highWaterMark: this.config.transport.highWaterMark,
      ...(sendTimeoutMs === undefined ? {} : { sendTimeoutMs }),
      curve: {
        serverPublicKey: await readPublicKey(this.production.curve.keysDir, member.id),
        publicKey: this.keys.publicKey,
        secretKey: this.keys.secretKey,
      },
    });
    this.pushes.push(channel);
    return channel;
  }

  /**
   * One channel that delivers each message to the scheduler owning its task on
   * (with `control`, to that scheduler's control inbox, if it has one)
   * `ring()` (APTA's agreed ring, or the static list; see cluster-ring.ts). A
   * message sent while the ring is empty goes to the static owner: a scheduler
   * that does not own the task ignores it, and the owner's sweep or
   * re-run picks the work up.
   */
  async toSchedulers(
    ring: () => HashRing = () => this.everyScheduler,
    { control = false }: { control?: boolean } = {},
  ): Promise<PushChannel> {
    const byId = new Map<string, PushChannel>();
    for (const member of this.production.topology.schedulers) {
      // Commands and pre-processing results go to a scheduler's control inbox where it has one.
      const endpoint = control ? (member.controlEndpoint ?? member.endpoint) : member.endpoint;
      byId.set(member.id, await this.connect({ id: member.id, endpoint }, SCHEDULER_SEND_TIMEOUT_MS));
    }
    return {
      send: async (message: Message) => {
        const key = 'taskId' in message ? message.taskId : 0;
        for (;;) {
          const owner = ring().ownerOf(key) ?? this.everyScheduler.ownerOf(key)!;
          try {
            return await byId.get(owner)!.send(message);
          } catch (error) {
            // Not taken for a while: the owner is slow, or dead and about to leave the ring. Waiting on a
            // dead scheduler's queue would stall this process for good (an executor would stop reading
            // batches), so ask the ring again: once APTA has moved the task, the message goes to its new owner.
            if (!(isHeraldError(error) && error.details.timedOut === true)) throw error;
            this.logger.debug('scheduler did not take a message in time; routing it again', {
              owner,
              kind: message.kind,
            });
          }
        }
      },
      close: () => undefined,
    };
  }

  private get everyScheduler(): HashRing {
    return (this.staticRing ??= staticSchedulerRing(this.production));
  }

  /** One channel to the dispatchers: task.halt reaches every one, other work goes round-robin. */
  async toDispatchers(): Promise<PushChannel> {
    const channels: PushChannel[] = [];
    for (const member of this.production.topology.dispatchers) channels.push(await this.connect(member));
    return {
      send: async (message: Message) => {
        if (message.kind === 'task.halt') await Promise.all(channels.map((c) => c.send(message)));
        else await channels[this.rr++ % channels.length]!.send(message);
      },
      close: () => undefined,
    };
  }

  /**
   * Load reports (host.load) to every dispatcher, each sent on its own: a
   * slow or dead dispatcher never holds up the others' reports, and a report
   * for one whose previous report is still on its way is dropped (the next
   * one is newer anyway). `send` resolves at once.
   */
  async toEveryDispatcher(sendTimeoutMs: number): Promise<PushChannel> {
    const links: { id: string; channel: PushChannel; sending: boolean }[] = [];
    for (const member of this.production.topology.dispatchers)
      links.push({ id: member.id, channel: await this.connect(member, sendTimeoutMs), sending: false });
    return {
      send: async (message: Message) => {
        for (const link of links) {
          if (link.sending) continue;
          link.sending = true;
          link.channel
            .send(message)
            .catch((error: unknown) =>
              this.logger.debug('message to a dispatcher not sent', {
                dispatcher: link.id,
                kind: message.kind,
                error: String(error),
              }),
            )
            .finally(() => (link.sending = false));
        }
      },
      close: () => undefined,
    };
  }

  async toExecutors(): Promise<Map<string, PushChannel>> {
    const byId = new Map<string, PushChannel>();
    for (const member of this.production.topology.executors) byId.set(member.id, await this.connect(member));
    return byId;
  }

  /** Links to the real-time inboxes of the executors that have one (`realtimeEndpoint`). */
  async toRealtimeExecutors(): Promise<Map<string, PushChannel>> {
    const byId = new Map<string, PushChannel>();
    for (const member of this.production.topology.executors) {
      if (member.realtimeEndpoint !== undefined)
        byId.set(member.id, await this.connect({ id: member.id, endpoint: member.realtimeEndpoint }));
    }
    return byId;
  }

  close(): void {
    for (const inbox of this.inboxes) inbox.close();
    for (const channel of this.pushes) channel.close();
  }
}
