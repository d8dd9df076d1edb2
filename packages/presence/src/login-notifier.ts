import { noopLogger, noopMeter, type Logger, type Meter } from '@herald/core/ports';

/** What the notifier sends through: one channel per executor (a ZeroMQ push in production). */
export interface LoginChannel {
  readonly executorId: string;
  send(message: { kind: 'user.logins'; uins: Uint32Array }): Promise<void>;
}

export interface LoginNotifierOptions {
  /** Notices in flight per executor before more are dropped (counted, logged). */
  maxInFlight: number;
  agentId: string;
  logger?: Logger;
  meter?: Meter;
}

/**
 * Tells every executor of the host who came online, without ever waiting on
 * one: an executor that is down or slow must not stall the presence topic
 * (and so everybody's online state). A notice that cannot be queued is
 * dropped and counted; the user's offline entries stay in that executor's
 * store and go out at the next login, so nothing is lost, only later.
 */
export function createLoginNotifier(
  channels: LoginChannel[],
  options: LoginNotifierOptions,
): (uins: Uint32Array) => Promise<void> {
  const logger = options.logger ?? noopLogger;
  const meter = options.meter ?? noopMeter;
  const dropped = meter.counter(
    'herald_presence_notices_dropped_total',
    'Login notices not sent to an executor (too many in flight or link failed)',
    ['agent', 'executor'],
  );
  const inFlight = new Map(channels.map((c) => [c.executorId, 0]));

  const drop = (executorId: string, reason: string) => {
    dropped.inc({ agent: options.agentId, executor: executorId });
    logger.warn('login notice dropped: those users get their offline entries from this executor at their next login', {
      executor: executorId,
      reason,
    });
  };

  return async (uins) => {
    for (const channel of channels) {
      const id = channel.executorId;
      if (inFlight.get(id)! >= options.maxInFlight) {
        drop(id, `${options.maxInFlight} notices already in flight`);
        continue;
      }
      inFlight.set(id, inFlight.get(id)! + 1);
      channel.send({ kind: 'user.logins', uins }).then(
        () => inFlight.set(id, inFlight.get(id)! - 1),
        (error: unknown) => {
          inFlight.set(id, inFlight.get(id)! - 1);
          drop(id, String(error));
        },
      );
    }
  };
}
