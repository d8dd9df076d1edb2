import AsyncLock from 'async-lock';
import { EventEmitter } from 'node:events';
import { chmod, mkdir } from 'node:fs/promises';
import { ClassicLevel } from 'classic-level';
import { AbstractEventBus, type EventHandler } from '@herald/core/adapter';
import { ErrorCodes, HeraldError, isHeraldError, PRIVATE_DIR_MODE, ValidationError } from '@herald/core';
import {
  noopLogger,
  type CheckedEvent,
  type ConsumedEvent,
  type CheckedSubscribeOptions,
  type Logger,
  type Subscription,
} from '@herald/core/ports';
import { GroupDelivery, type Handler } from './group-delivery';
import { committedKey, decodePosition, encodePosition, eventKey, eventsFrom, positionOf, positionString } from './keys';
import { decodeEvent, encodeEvent } from './validate';

export interface LevelEventLogOptions {
  /**
   * Most events handed to a handler in one call.
   * @defaultValue 500
   */
  batchSize?: number;
  /** Handler failures and storage errors are logged here. @defaultValue noopLogger */
  logger?: Logger;
}

export const DEFAULT_BATCH_SIZE = 500;

type Db = ClassicLevel<Buffer, string>;

/**
 * The embedded EventBus: an event log in LevelDB (classic-level), for the
 * embedded profile, where every tier runs in one process.
 *
 * Per topic an append-only log with sequential positions 0, 1, 2, ...
 * (key 'e' topic position, u64 BE); per (topic, group) the committed
 * position ('c' topic group): every event before it was handled. Appends to
 * one topic are serialised in this process (LevelDB's LOCK file keeps other
 * processes out), so events land, and become visible, in position order.
 *
 * Subscribers are woken in-process after each append (an EventEmitter per
 * log, one event name per topic) and read from their group's cursor: no
 * polling loop. A group's members share its events: one batch in flight per
 * group, handed to the members in turn, so per-key order holds.
 *
 * A new group starts at position 0 with `fromBeginning`, otherwise at the
 * topic's end; that start is committed at once, so events published after
 * `subscribe` resolved are never missed, even across a restart.
 *
 * `Subscription.close()` waits for the batch its handler is working on; do
 * not await it from inside that handler.
 *
 * It never skips: the log deletes no event (no retention), so a group that
 * falls behind reads everything it missed and `SubscribeOptions.onSkip` is
 * never called.
 */
export class LevelEventLog extends AbstractEventBus {
  private readonly appended = new EventEmitter().setMaxListeners(0);
  /** Next position per topic, loaded on first use. */
  private readonly heads = new Map<string, number>();
  /** Per topic, serialises appends and group creation (no cap on waiting callers, no timeout). */
  private readonly topicLocks = new AsyncLock({ maxPending: Infinity });
  private readonly groups = new Map<string, GroupDelivery>();

  private constructor(
    private readonly db: Db,
    private readonly batchSize: number,
    private readonly logger: Logger,
  ) {
    super({ name: 'LevelEventLog', noun: 'event log', translate: toHeraldError });
  }

  static async open(
    path: string,
    { batchSize = DEFAULT_BATCH_SIZE, logger = noopLogger }: LevelEventLogOptions = {},
  ): Promise<LevelEventLog> {
    if (!Number.isSafeInteger(batchSize) || batchSize < 1)
      throw new ValidationError('batchSize must be a positive integer', { batchSize });
    // The log's directory is its user's only (docs/security.md); LevelDB's files inside follow the process umask.
    await mkdir(path, { recursive: true, mode: PRIVATE_DIR_MODE });
    await chmod(path, PRIVATE_DIR_MODE);
    const db: Db = new ClassicLevel<Buffer, string>(path, { keyEncoding: 'buffer', valueEncoding: 'utf8' });
    try {
      await db.open();
    } catch (error) {
      if ((error as { cause?: { code?: unknown } }).cause?.code === 'LEVEL_LOCKED') {
        throw new HeraldError(ErrorCodes.UNAVAILABLE, `LevelEventLog.open: ${path} is in use by another process`, {
          retriable: true,
          cause: error,
        });
      }
      throw toHeraldError(error, 'open');
    }
    return new LevelEventLog(db, batchSize, logger);
  }

  /** Appends in the topic's chain, so events land, and become visible, in position order; then wakes the topic's groups. */
  protected _publish(topic: string, events: readonly CheckedEvent[]): Promise<void> {
    const encoded = events.map(encodeEvent);
    return this.serial(topic, async () => {
      const head = await this.headOf(topic);
      await this.db.batch(encoded.map((value, i) => ({ type: 'put' as const, key: eventKey(topic, head + i), value })));
      this.heads.set(topic, head + encoded.length);
      this.appended.emit(topic);
    });
  }

  protected async _subscribe(
    topic: string,
    group: string,
    handler: EventHandler,
    { fromBeginning, retryDelayMs }: CheckedSubscribeOptions,
  ): Promise<Subscription> {
    const member = { handler: handler as Handler, retryDelayMs };
    const delivery = await this.serial(topic, () => this.groupFor(topic, group, fromBeginning));
    delivery.add(member);
    let closing: Promise<void> | undefined;
    return {
      close: () =>
        (closing ??= delivery.remove(member).then((last) => {
          if (last && this.groups.get(groupId(topic, group)) === delivery) this.forget(topic, group, delivery);
        })),
    };
  }

  /** Closes every subscription (waiting for batches in flight), then the database. */
  protected async _close(): Promise<void> {
    const groups = [...this.groups.values()];
    this.groups.clear();
    await Promise.all(groups.map((delivery) => delivery.shutdown()));
    this.appended.removeAllListeners();
    await this.db.close();
  }

  /** The live delivery of (topic, group), or a new one at its committed (or initial) position. Runs in the topic's chain. */
  private async groupFor(topic: string, group: string, fromBeginning: boolean): Promise<GroupDelivery> {
    const id = groupId(topic, group);
    const live = this.groups.get(id);
    if (live !== undefined) {
      if (!live.stopped) return live;
      await live.finished(); // its last commit must land before the new delivery reads the position
    }
    const key = committedKey(topic, group);
    const stored = await this.db.get<Buffer, Buffer>(key, { valueEncoding: 'buffer' });
    let position: number;
    if (stored !== undefined) position = decodePosition(stored);
    else {
      position = fromBeginning ? 0 : await this.headOf(topic);
      await this.db.put<Buffer, Buffer>(key, encodePosition(position), { valueEncoding: 'buffer' });
    }
    const delivery = new GroupDelivery(
      {
        read: (from, limit) => this.read(topic, from, limit),
        commit: (next) => this.db.put<Buffer, Buffer>(key, encodePosition(next), { valueEncoding: 'buffer' }),
      },
      position,
      this.batchSize,
      this.logger,
      { topic, group },
    );
    this.groups.set(id, delivery);
    this.appended.on(topic, delivery.notify);
    return delivery;
  }

  private forget(topic: string, group: string, delivery: GroupDelivery): void {
    this.groups.delete(groupId(topic, group));
    this.appended.off(topic, delivery.notify);
  }

  private async read(topic: string, from: number, limit: number): Promise<{ events: ConsumedEvent[]; next: number }> {
    const entries = await this.db.iterator({ ...eventsFrom(topic, from), limit }).all();
    const events = entries.map(([key, text]) => ({
      topic,
      position: positionString(positionOf(key)),
      ...decodeEvent(text),
    }));
    const next = entries.length === 0 ? from : positionOf(entries[entries.length - 1]![0]) + 1;
    return { events, next };
  }

  /** The topic's next position: the last event's + 1, read once, then kept in memory (appends run in the chain). */
  private async headOf(topic: string): Promise<number> {
    const known = this.heads.get(topic);
    if (known !== undefined) return known;
    const { gte, lt } = eventsFrom(topic, 0);
    const last = await this.db.keys({ gte, lt, reverse: true, limit: 1 }).all();
    const head = last.length === 0 ? 0 : positionOf(last[0]!) + 1;
    this.heads.set(topic, head);
    return head;
  }

  /** Runs `fn` after everything queued before it for this topic. */
  private serial<T>(topic: string, fn: () => Promise<T>): Promise<T> {
    return this.topicLocks.acquire(topic, fn);
  }
}

const groupId = (topic: string, group: string) => `${topic}\u0000${group}`;

function toHeraldError(error: unknown, op: string): HeraldError {
  if (isHeraldError(error)) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'LEVEL_DATABASE_NOT_OPEN' || code === 'LEVEL_ITERATOR_NOT_OPEN') {
    return new HeraldError(ErrorCodes.STORE_CLOSED, `LevelEventLog.${op}: the event log is closed`, { cause: error });
  }
  return new HeraldError(
    ErrorCodes.INTERNAL,
    `LevelEventLog.${op} failed: ${(error as Error)?.message ?? String(error)}`,
    {
      cause: error,
      details: { levelCode: typeof code === 'string' ? code : undefined },
    },
  );
}
