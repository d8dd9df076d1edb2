import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  noopLogger,
  noopMeter,
  TOPICS,
  type ConsumedEvent,
  type EventBus,
  type Logger,
  type Meter,
  type SkippedRange,
  type Subscription,
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
   * A new generation, once the agent cleared its bitmap to rebuild it
   * (presence events were skipped: deleted before it read them). Production
   * writes it to `<bitmapFile>.generation` (renewGeneration), so a restart
   * resumes the rebuild's group. @defaultValue a random one, kept in memory
   */
  renewGeneration?: () => Promise<string>;
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
  /** The consumer group this agent reads the presence topic in (a new one after each rebuild). */
  readonly group: string;
  /** Bitmaps rebuilt since start (herald_presence_rebuilds_total). */
  readonly rebuilds: number;
  close(): Promise<void>;
}

/** One reading of the presence topic: a generation's consumer group. A rebuild starts a new one and retires the old. */
interface Reading {
  group: string;
  subscription?: Subscription;
}

/** Wait between attempts to start a rebuild's reading when the bus refuses. */
const RESUBSCRIBE_DELAY_MS = 1_000;

/** Ten minutes of reordering tolerated, for up to 10^7 users with recent events (about 220 MB, fixed). */
export const DEFAULT_ORDER: PresenceOrderOptions = { windowMs: 600_000, maxTracked: 10_000_000 };

/**
 * The presence agent of one host: follows the presence topic and keeps the
 * host's online bitmap, applying each user's events in event-time order (a
 * late logout never hides a newer login) and idempotently (the topic is
 * at-least-once), then tells the host's executors who came online.
 * Malformed events are counted, logged and skipped: one bad producer must not
 * stall presence for everyone.
 *
 * Skipped events (the bus's `onSkip`: the topic's retention deleted events
 * before this agent read them) leave the bitmap stale: a logout never read
 * keeps a user online. The agent then clears the bitmap, takes a new
 * generation and replays the topic from its beginning in a new group (on a
 * compacted topic that replay holds every user's last event), and retires the
 * old group; every user the replay finds online is handed to the executors
 * again, so their offline lists are walked.
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
  const rebuildsCounter = meter.counter(
    'herald_presence_rebuilds_total',
    'Bitmaps cleared and rebuilt from the presence topic because presence events were skipped (deleted before they were read)',
    ['agent'],
  );
  let order = new PresenceOrder(deps.order ?? DEFAULT_ORDER);
  const { bitmap, id } = deps;
  const renew = deps.renewGeneration ?? (() => Promise.resolve(randomBytes(8).toString('hex')));
  /** Users whose bits were set by a batch whose notice failed: the redelivered batch finds them online already, so they are owed. */
  let owed: number[] = [];
  /** The reading whose events are applied; undefined between a skip and the rebuild's reading. */
  let current: Reading | undefined;
  /** The newest reading's group (also during a rebuild's start). */
  let group = '';
  const readings = new Set<Reading>();
  let rebuilding: Promise<void> | undefined;
  let rebuilds = 0;
  let closed = false;

  async function follow(generation: string): Promise<Reading> {
    const reading: Reading = { group: `presence-${id}-${generation}` };
    current = reading;
    group = reading.group;
    readings.add(reading);
    try {
      reading.subscription = await deps.bus.subscribe(
        TOPICS.presence,
        reading.group,
        (batch) => applyTo(reading, batch),
        {
          fromBeginning: true,
          onSkip: (skip) => Promise.resolve(stale(reading, skip)),
        },
      );
    } catch (error) {
      readings.delete(reading);
      throw error;
    }
    return reading;
  }

  /** Events after a hole would be applied over a bitmap that missed some: stop applying this reading, rebuild. */
  function stale(reading: Reading, skip: SkippedRange): void {
    if (reading !== current || closed) return;
    logger.error('presence events skipped: the bitmap is stale; clearing it and replaying the presence topic', {
      ...skip,
    });
    current = undefined;
    // Not awaited: the old reading's batch must end before its subscription can close.
    rebuilding = rebuild(reading).finally(() => (rebuilding = undefined));
  }

  async function rebuild(old: Reading): Promise<void> {
    bitmap.clearAll();
    order = new PresenceOrder(deps.order ?? DEFAULT_ORDER);
    owed = [];
    rebuilds++;
    rebuildsCounter.inc({ agent: id });
    while (!closed) {
      try {
        const reading = await follow(await renew());
        logger.info('presence: rebuilding the bitmap from the presence topic', { group: reading.group });
        break;
      } catch (error) {
        logger.error('presence: cannot start the rebuild; trying again', { error: String(error) });
        await sleep(RESUBSCRIBE_DELAY_MS);
      }
    }
    await retire(old);
  }

  async function retire(reading: Reading): Promise<void> {
    readings.delete(reading);
    await reading.subscription?.close();
  }

  async function applyTo(reading: Reading, batch: ConsumedEvent[]): Promise<void> {
    if (reading !== current) return; // a retired reading: its events are replayed by the rebuild
    await apply(batch);
  }

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

  await follow(deps.generation);
  return {
    get group() {
      return group;
    },
    get rebuilds() {
      return rebuilds;
    },
    async close() {
      closed = true;
      await rebuilding;
      await Promise.all([...readings].map(retire));
    },
  };
}
