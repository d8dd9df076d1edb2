import { setTimeout as sleep } from 'node:timers/promises';
import { ErrorCodes, HeraldError, isHeraldError } from '@herald/core';
import {
  ChannelPacing,
  checkChannelLimits,
  fractionOfChannel,
  shareOfChannel,
  type ChannelLimits,
  type ChannelPacingOptions,
  type ChannelStatus,
} from '@herald/core/pacing';
import {
  noopLogger,
  noopMeter,
  systemClock,
  type Clock,
  type Delivery,
  type DeliveryGateway,
  type DeliveryResult,
  type Logger,
  type Meter,
} from '@herald/core/ports';
import type { ChannelHold } from '@herald/core/task';
import { LRUCache } from 'lru-cache';
import { ChannelDemand } from './channel-demand';
import { channelMetrics, type ChannelMetrics } from './channel-metrics';
import { holdOf, type ChannelThrottle } from './channel-hold';
import { DeadLetterLog } from './dead-letter-log';

export type { ChannelHoldSource, ChannelThrottle } from './channel-hold';

export interface PacedGatewayOptions {
  /** The channel's name, its metrics' label: the delivery kind (`webhook`). */
  channel: string;
  pacing: ChannelPacingOptions;
  /**
   * The longest one batch waits while the channel holds sending (throttled,
   * failing, breaker open); then `deliver` rejects UNAVAILABLE and the batch
   * comes again from its unit's checkpoint. It bounds how long a stopping
   * executor waits for the batch in hand.
   */
  maxHoldMs: number;
  clock?: Clock;
  logger?: Logger;
  meter?: Meter;
}

/** The reason a batch refused whole gives each of its recipients. */
export const BATCH_REFUSED = 'batch_refused';
/** A new share of the budget closer than this (relative) to the one in force is not applied: new bounds reset the probing. */
const SHARE_STEP = 0.1;
/** Tasks whose batches a channel refused, remembered so their later batches are not sent. */
const REFUSED_TASKS = 10_000;

/**
 * One delivery channel, paced by its own answers (docs/delivery.md, "Pacing
 * by the channel's health"): every task's batches through this process's
 * gateway share one ChannelPacing. A batch waits until the pacing admits it,
 * goes to the gateway once, and the outcome drives the pacing:
 * - accepted: the rate may rise; the recipients the channel rejected are
 *   dead letters, counted by reason and never sent again;
 * - throttled: the rate is cut, sending held for Retry-After, then the batch goes again;
 * - failed: it goes again after a back-off; failures in a row open the
 *   breaker and hold the channel (the batch waits, the task stays SENDING)
 *   until a probe gets through;
 * - refused whole: every recipient of the batch is a dead letter
 *   (`batch_refused`), and so is every later batch of the task, without a
 *   send: the payload is what the channel refused, and it is the task's.
 * The batch resolves as accepted less its dead letters, so the executor
 * confirms it and never sends it again.
 */
export class PacedDeliveryGateway implements DeliveryGateway {
  private readonly pacing: ChannelPacing;
  /** The channel's whole budget (configured, or an admin's); the pacing keeps this process's share of it. */
  private channelLimits: ChannelLimits;
  /** Processes sending through the channel, this one included (`shareAmong`, `shareByDemand`). */
  private senders = 1;
  /** The part of the budget this process paces to: 1/senders, or its part by demand. */
  private fraction = 1;
  private readonly demand = new ChannelDemand();
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly metrics: ChannelMetrics;
  private readonly labels: { channel: string };
  private readonly deadLetters: DeadLetterLog;
  private readonly refused = new LRUCache<number, string>({ max: REFUSED_TASKS });
  private readonly stop = new AbortController();
  private reported: string = 'closed';
  /** The hold last told to the watchers ('' none), so they hear each change of it once. */
  private toldHold = '';
  private readonly holdWatchers = new Set<(hold: ChannelHold | undefined) => void>();
  private readonly throttleWatchers = new Set<(throttle: ChannelThrottle) => void>();

  constructor(
    private readonly inner: DeliveryGateway,
    private readonly options: PacedGatewayOptions,
  ) {
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? noopLogger;
    this.metrics = channelMetrics(options.meter ?? noopMeter);
    this.labels = { channel: options.channel };
    this.deadLetters = new DeadLetterLog(options.channel, this.metrics, this.logger);
    this.pacing = new ChannelPacing(options.pacing, this.clock.now());
    this.channelLimits = this.pacing.limits;
    this.observe(this.pacing.status(this.clock.now()));
  }

  /** The channel's pacing now: its rate limit, its breaker, and why sending is held, if it is. */
  status(): ChannelStatus {
    return this.pacing.status(this.clock.now());
  }

  /**
   * The channel's name, its whole rate bounds (`maxRate`: its limit, for
   * every sender together), this process's rate now, and how many processes
   * share the budget (`senders`; this one paces to 1/senders of it).
   */
  limits(): ChannelLimits & { channel: string; rate: number; senders: number } {
    return { channel: this.options.channel, ...this.channelLimits, rate: this.pacing.rate, senders: this.senders };
  }

  /**
   * Changes the channel's whole rate bounds now, without a restart (an
   * admin's `PUT /api/v1/channels/:channel/limits`): every task sending
   * through this process's channel is paced within its share of them from
   * its next batch. A bad change (a bound not above 0, minRate above
   * maxRate) throws a ValidationError naming the field and changes nothing.
   */
  setLimits(limits: Partial<ChannelLimits>): ChannelLimits & { channel: string; rate: number; senders: number } {
    const next = { ...this.channelLimits, ...limits };
    checkChannelLimits(next);
    this.channelLimits = next;
    this.applyShare();
    this.logger.info('channel limits changed', { channel: this.options.channel, ...next, senders: this.senders });
    return this.limits();
  }

  /**
   * Tells the channel how many processes send through it now, this one
   * included (production: the live executors the membership sees): this
   * process paces to 1/senders of the channel's budget from its next batch,
   * so the senders together keep to the channel's limit (docs/delivery.md,
   * "One budget per channel").
   */
  shareAmong(senders: number): void {
    if (senders === this.senders && this.fraction === 1 / senders) return;
    shareOfChannel(this.channelLimits, senders); // checks senders before anything changes
    this.senders = senders;
    this.rescaleTo(1 / senders);
    this.logger.info('channel budget shared', { channel: this.options.channel, senders, ...this.channelLimits });
  }

  /**
   * Paces to `fraction` of the channel's budget, this process's part by
   * demand among `senders` (core `demandFraction`). A fraction within
   * SHARE_STEP of the one in force is left alone: each change of bounds
   * restarts the rate's probing, and demand jitters from one report to the next.
   * `sendersRate`, when known, is the rate every sender sends at together
   * (this one's `sendingRate` and the peers' told ones): a larger part sets
   * the rate to `fraction` of it (core ChannelPacing.rescale).
   */
  shareByDemand(fraction: number, senders: number, sendersRate?: number): void {
    fractionOfChannel(this.channelLimits, fraction); // checks the fraction before anything changes
    shareOfChannel(this.channelLimits, senders);
    if (senders === this.senders && Math.abs(fraction - this.fraction) <= SHARE_STEP * this.fraction) return;
    this.senders = senders;
    this.rescaleTo(fraction, sendersRate);
    this.logger.info('channel budget shared by demand', {
      channel: this.options.channel,
      senders,
      fraction,
      sendersRate,
      rate: this.pacing.rate,
    });
  }

  /** The rate this process sends at through the channel: its pacing rate, or what it sent when less (core `sendingRate`). */
  sendingRate(): number {
    return this.pacing.sendingRate(this.clock.now());
  }

  /** The part of the channel's budget this process paces to now, in (0, 1]. */
  share(): number {
    return this.fraction;
  }

  /** The most recipients this process had waiting on or going through the channel at once since the last call: its demand. */
  takeDemand(): number {
    return this.demand.take();
  }

  /** Recipients of the batches inside `deliver` now (waiting on the pacing or in flight). */
  inHand(): number {
    return this.demand.inHand;
  }

  /** Calls `listener` each time the last batch in hand leaves, so the budget's split can tell the others at once. */
  onIdle(listener: () => void): () => void {
    return this.demand.onIdle(listener);
  }

  /** Whether the channel holds sending now, in a task report's words: throttled, or unavailable (failing, breaker not closed). */
  hold(): ChannelHold | undefined {
    return holdOf(this.status());
  }

  /**
   * Calls `listener` at each change of the channel's hold (undefined: sending
   * again), so the executor can tell the tasks whose batches wait on it.
   * Returns the unsubscribe.
   */
  watchHold(listener: (hold: ChannelHold | undefined) => void): () => void {
    this.holdWatchers.add(listener);
    return () => this.holdWatchers.delete(listener);
  }

  /** The channel's name: the delivery kind (`webhook`). */
  get channel(): string {
    return this.options.channel;
  }

  /**
   * Calls `listener` at each throttle this process's channel answers (not
   * those relayed to it: `throttledByPeer`), so the other executors can hold
   * too. Returns the unsubscribe.
   */
  onThrottled(listener: (throttle: ChannelThrottle) => void): () => void {
    this.throttleWatchers.add(listener);
    return () => this.throttleWatchers.delete(listener);
  }

  /**
   * Another executor's channel throttled a send (a relayed
   * `channel.throttled`): the channel's quota is the cluster's, so this
   * process holds for `holdMs` from now and cuts its rate as if it had been
   * throttled itself, instead of paying a 429 of its own to learn it.
   */
  throttledByPeer(holdMs: number, detail: string, from: string): void {
    this.metrics.peerThrottles.inc(this.labels);
    this.pacing.throttled(holdMs, `${detail} (relayed from ${from})`, this.clock.now());
    this.observe(this.pacing.status(this.clock.now()));
  }

  async deliver(delivery: Delivery): Promise<DeliveryResult> {
    if (this.stop.signal.aborted)
      throw new HeraldError(ErrorCodes.UNAVAILABLE, `channel ${this.options.channel} is closed`);
    const n = delivery.uins.length;
    if (n === 0) return { rejected: [] };
    const refusal = this.refused.get(delivery.taskId);
    if (refusal !== undefined) return this.refuseWhole(delivery, refusal);
    this.demand.enter(n);
    try {
      return await this.sent(delivery);
    } finally {
      this.demand.leave(n);
    }
  }

  /** Sends a batch when the pacing admits it, again after a throttle or failure, until accepted or refused. */
  private async sent(delivery: Delivery): Promise<DeliveryResult> {
    const n = delivery.uins.length;
    const holdEnds = this.clock.now() + this.options.maxHoldMs;
    for (;;) {
      await this.admitted(n, holdEnds);
      const started = performance.now();
      try {
        const result = await this.inner.deliver(delivery);
        const rejected = result?.rejected ?? [];
        this.answered(started);
        this.pacing.accepted(performance.now() - started, this.clock.now());
        this.metrics.sent.inc(this.labels, n - rejected.length);
        this.deadLetters.record(delivery.taskId, rejected);
        this.observe(this.pacing.status(this.clock.now()));
        return { rejected };
      } catch (error) {
        if (!isHeraldError(error) || this.stop.signal.aborted) throw error;
        if (error.code === ErrorCodes.DELIVERY_REJECTED) {
          this.answered(started);
          this.pacing.accepted(performance.now() - started, this.clock.now());
          this.refused.set(delivery.taskId, error.message);
          this.metrics.refused.inc(this.labels);
          this.logger.error("channel refused a batch whole: the task's recipients are dead letters from here on", {
            channel: this.options.channel,
            taskId: delivery.taskId,
            reason: error.message,
          });
          return this.refuseWhole(delivery, error.message);
        }
        this.onRetriable(error, started);
      }
      this.observe(this.pacing.status(this.clock.now()));
    }
  }

  async close(): Promise<void> {
    this.stop.abort();
    await this.inner.close();
  }

  /** A throttle or a failure: the pacing learns it; anything else is not the channel's to judge. */
  private onRetriable(error: HeraldError, started: number): void {
    const now = this.clock.now();
    if (error.code === ErrorCodes.DELIVERY_THROTTLED) {
      this.answered(started);
      this.metrics.throttled.inc(this.labels);
      const retryAfter = error.details['retryAfterMs'];
      const retryAfterMs = typeof retryAfter === 'number' ? retryAfter : undefined;
      this.pacing.throttled(retryAfterMs, error.message, now);
      const throttle = { holdMs: retryAfterMs ?? this.options.pacing.throttleDelayMs, detail: error.message };
      for (const watcher of this.throttleWatchers) watcher(throttle);
      return;
    }
    if (error.code !== ErrorCodes.UNAVAILABLE) throw error;
    this.metrics.failed.inc(this.labels);
    this.pacing.failed(error.message, now);
  }

  /** Waits until the pacing admits `count` recipients; rejects UNAVAILABLE once sending is still held at `holdEnds`. */
  private async admitted(count: number, holdEnds: number): Promise<void> {
    for (;;) {
      const now = this.clock.now();
      const admission = this.pacing.admit(count, now);
      if (admission.wait === 0 || admission.reason === undefined) return;
      const status = this.pacing.status(now);
      this.observe(status);
      const held = admission.reason !== 'rate';
      if (held && now >= holdEnds) {
        throw new HeraldError(
          ErrorCodes.UNAVAILABLE,
          `channel ${this.options.channel} throttled / unavailable: ${status.held?.detail ?? admission.reason}`,
          { retriable: true, details: { channel: this.options.channel, reason: admission.reason } },
        );
      }
      // Held longer than the batch may wait: wait what it may, then give it back if the hold is still on.
      const wait = held ? Math.min(admission.wait, holdEnds - now) : admission.wait;
      await sleep(wait, undefined, { signal: this.stop.signal }).catch(() => undefined);
      if (this.stop.signal.aborted)
        throw new HeraldError(ErrorCodes.UNAVAILABLE, `channel ${this.options.channel} is closed`);
    }
  }

  /** A new part of the budget: the rate found so far is scaled with it, or set from the senders' (ChannelPacing.rescale). */
  private rescaleTo(fraction: number, sendersRate?: number): void {
    const factor = fraction / this.fraction;
    this.fraction = fraction;
    const sent = sendersRate === undefined ? undefined : { rate: sendersRate * fraction, now: this.clock.now() };
    this.pacing.rescale(fractionOfChannel(this.channelLimits, fraction), factor, sent);
    this.observe(this.pacing.status(this.clock.now()));
  }

  private applyShare(): void {
    this.pacing.setLimits(fractionOfChannel(this.channelLimits, this.fraction));
    this.observe(this.pacing.status(this.clock.now()));
  }

  private answered(started: number): void {
    this.metrics.latency.observe((performance.now() - started) / 1000, this.labels);
  }

  private refuseWhole(delivery: Delivery, reason: string): DeliveryResult {
    const rejected = Array.from(delivery.uins, (uin) => ({ uin, reason: BATCH_REFUSED }));
    this.deadLetters.record(delivery.taskId, rejected, reason);
    return { rejected, refused: reason };
  }

  private tellHold(hold: ChannelHold | undefined): void {
    const told = hold === undefined ? '' : `${hold.state}:${hold.reason}`;
    if (told === this.toldHold) return;
    this.toldHold = told;
    for (const watcher of this.holdWatchers) watcher(hold);
  }

  /** Publishes the pacing's state, and logs each change of whether the channel holds sending. */
  private observe(status: ChannelStatus): void {
    this.metrics.limit.set(status.rate, this.labels);
    this.metrics.breaker.set(status.breaker === 'closed' ? 0 : status.breaker === 'half-open' ? 1 : 2, this.labels);
    this.metrics.held.set(status.held === undefined ? 0 : 1, this.labels);
    const state = status.held === undefined ? 'closed' : `${status.breaker}:${status.held.reason}`;
    if (state === this.reported) return;
    if (status.breaker === 'open') this.metrics.opened.inc(this.labels);
    this.reported = state;
    if (status.held === undefined) this.logger.info('channel sending again', { channel: this.options.channel });
    else
      this.logger.warn('channel throttled / unavailable: sending held', {
        channel: this.options.channel,
        breaker: status.breaker,
        why: status.held.reason,
        reason: status.held.detail,
      });
    this.tellHold(holdOf(status));
  }
}
