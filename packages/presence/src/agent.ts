import {
  noopLogger,
  noopMeter,
  TOPICS,
  type ConsumedEvent,
  type EventBus,
  type Logger,
  type Meter,
} from '@herald/core/ports';
import { PresenceOrder, type OnlineBitmap, type PresenceOrderOptions } from '@herald/core/presence';
import { readPresenceEvent } from './presence-event';
import { checkSignature } from './presence-signature';

export interface PresenceAgentDeps {
  /** This agent's id; with `generation` it names the consumer group. */
  id: string;
  bus: EventBus;
  /** The host's online bitmap. This agent is its only writer. */
  bitmap: OnlineBitmap;
  /**
   * Names the bitmap's contents: a new bitmap (a new file, e.g. after a reboot
   * emptied /dev/shm) gets a new generation, hence a new consumer group that
   * replays the presence topic from its beginning, instead of resuming after
   * events whose effect the old bitmap took with it.
   */
  generation: string;
  /**
   * Told, once per batch of events, which users came online (were offline,
   * now online), so their offline lists get walked. May be slow: the next
   * batch waits, and the batch counts as consumed only once it resolved.
   */
  notifyLogins(uins: Uint32Array): Promise<void>;
  order?: PresenceOrderOptions;
  /**
   * The key shared with the login service (`presence.hmacKeyFile`, read with
   * presenceKey). When given, only version-2 events signed with it are
   * applied; unsigned and badly signed ones are counted and dropped.
   * Default none: every well-formed event is applied.
   */
  hmacKey?: Buffer;
  logger?: Logger;
  meter?: Meter;
}

export interface PresenceAgent {
  /** The consumer group this agent reads the presence topic in. */
  readonly group: string;
  close(): Promise<void>;
}

/** Ten minutes of reordering tolerated, for up to 10^7 users with recent events. */
export const DEFAULT_ORDER: PresenceOrderOptions = { windowMs: 600_000, maxTracked: 10_000_000 };

/**
 * The presence agent of one host: follows the presence topic and keeps the
 * host's online bitmap, applying each user's events in event-time order (a
 * late logout never hides a newer login) and idempotently (the topic is
 * at-least-once), then tells the host's executors who came online.
 * Malformed events are counted, logged and skipped: one bad producer must not
 * stall presence for everyone.
 */
export async function startPresenceAgent(deps: PresenceAgentDeps): Promise<PresenceAgent> {
  const logger = deps.logger ?? noopLogger;
  const meter = deps.meter ?? noopMeter;
  const events = meter.counter(
    'herald_presence_events_total',
    'Presence events read, by result (applied, stale, malformed; with presence.hmacKeyFile also unsigned, bad_signature)',
    ['agent', 'result'],
  );
  const logins = meter.counter(
    'herald_presence_logins_total',
    'Users who came online and were handed to the executors',
    ['agent'],
  );
  const order = new PresenceOrder(deps.order ?? DEFAULT_ORDER);
  const { bitmap, id } = deps;
  const group = `presence-${id}-${deps.generation}`;
  /** Users whose bits were set by a batch whose notice failed: the redelivered batch finds them online already, so they are owed. */
  let owed: number[] = [];

  async function apply(batch: ConsumedEvent[]): Promise<void> {
    const cameOnline = owed;
    owed = [];
    let applied = 0;
    let stale = 0;
    let malformed = 0;
    const refused = { unsigned: 0, bad_signature: 0 };
    for (const event of batch) {
      const change = readPresenceEvent(event.value, event.timestamp, bitmap.uinLimit);
      if ('malformed' in change) {
        malformed++;
        logger.warn('presence event skipped: malformed', {
          position: event.position,
          key: event.key,
          reason: change.malformed,
        });
        continue;
      }
      if (deps.hmacKey !== undefined) {
        const check = checkSignature(deps.hmacKey, event.value, change);
        if (check !== 'signed') {
          refused[check]++;
          continue;
        }
      }
      if (!order.admit(change.uin, change.at)) {
        stale++;
        continue;
      }
      applied++;
      if (change.online && !bitmap.isOnline(change.uin)) cameOnline.push(change.uin);
      bitmap.setOnline(change.uin, change.online);
    }
    const labels = { agent: id };
    if (applied > 0) events.inc({ ...labels, result: 'applied' }, applied);
    if (stale > 0) events.inc({ ...labels, result: 'stale' }, stale);
    if (malformed > 0) events.inc({ ...labels, result: 'malformed' }, malformed);
    for (const [result, n] of Object.entries(refused)) if (n > 0) events.inc({ ...labels, result }, n);
    // One line a batch, not one an event: a forger must not be able to flood the log.
    if (refused.unsigned + refused.bad_signature > 0)
      logger.warn('presence events dropped: not signed with presence.hmacKeyFile', {
        ...refused,
        first: batch[0]?.position,
      });
    if (cameOnline.length > 0) {
      try {
        await deps.notifyLogins(Uint32Array.from(cameOnline));
      } catch (error) {
        owed = cameOnline;
        throw error;
      }
      logins.inc(labels, cameOnline.length);
    }
  }

  const subscription = await deps.bus.subscribe(TOPICS.presence, group, apply, { fromBeginning: true });
  return { group, close: () => subscription.close() };
}
