import { ValidationError } from '../errors';
import { checkChannelLimits, type ChannelLimits } from './channel-share';
import { checkOptions, type ChannelPacingOptions } from './channel-pacing-options';
import { SentRate } from './sent-rate';

export type { ChannelLimits } from './channel-share';
export type { ChannelPacingOptions };

/** This sender's new part of the rate every sender sent at together, and when (epoch ms): `rescale`. */
export interface SendersRate {
  rate: number;
  now: number;
}

export type BreakerState = 'closed' | 'open' | 'half-open';

/** Why a send must wait: the rate, a Retry-After or throttle hold, failure back-off, or the breaker. */
export type WaitReason = 'rate' | 'throttled' | 'failing' | 'open' | 'probing';

/** Wait 0: admitted (and scheduled). Else how long to wait before asking again, and why. */
export interface Admission {
  wait: number;
  reason?: WaitReason;
}

export interface ChannelStatus {
  rate: number;
  breaker: BreakerState;
  /** Set while sending is held (throttled, failing or the breaker not closed): the channel's last reason. */
  held?: { reason: WaitReason; detail: string };
}

/** How the latency average follows new samples: weight of the newest. */
const LATENCY_WEIGHT = 0.2;
/** How fast the lowest latency seen forgets, per accepted sample, so a channel that got slower for good stops being cut. */
const BASELINE_DRIFT = 0.01;
/** How often a caller waiting on a probe in flight asks again. */
const PROBE_POLL_MS = 50;
/** After a cut, the rate climbs by at most this part of the rate that was cut (the ceiling) per second, so the next throttle comes seconds later, not at once. */
const PROBE_PER_SECOND = 0.01;
/** A rate at least this part of the ceiling is probing it (a throttle there may be a gentle cut, below). */
const NEAR_CEILING = 0.85;
/** A rate this far above the ceiling without a cut: the channel has room again, the ceiling is forgotten. */
const FORGET_ABOVE = 1.2;
/**
 * A cut at least this long after the last one, at a rate within NEAR_CEILING
 * of the ceiling or above the last cut's landing, is a probe that found the
 * limit again: the rate goes
 * only to GENTLE_CUT of itself, not `decreaseFactor` (a fixed quota is not
 * paid for with seconds at 70% of it). Sooner, or further below the
 * ceiling, the limit moved down: the deep cut. 90%, not 95%: a receiver's
 * burst lets a rate some 5-8% above its quota through for seconds, so the
 * ceiling is that much above the quota and 95% of it still drains the burst
 * (bench/channel-pacing-model.js: 10^6 recipients at 20k/s, +10.6% over
 * limit-bound at 95%, +7.9% at 90%).
 */
const SETTLED_MS = 3000;
/**
 * A cut starts from the rate actually sent over the last SENT_WINDOW_MS
 * (since the last hold's end) when that is below the pacing's rate: a
 * sender that cannot reach its rate (its own CPU, its share of the work)
 * would otherwise spend several 429s and their holds cutting a rate it
 * never sent at. Less than SENT_MIN_SPAN_MS of sending is too short to tell.
 */
const SENT_WINDOW_MS = 1000;
const SENT_MIN_SPAN_MS = 250;
const GENTLE_CUT = 0.9;
/**
 * A throttle within SENT_MIN_SPAN_MS of resuming from the last cut's hold,
 * that cut not SETTLED_MS old: the channel spent at once the burst it had
 * refilled during the hold, so the rate is still far above its limit, and
 * too little was sent to measure a rate to cut from. The cut is
 * `decreaseFactor` applied this many times: one more 429 and its
 * whole-second hold cost more than landing lower and climbing back
 * (bench/channel-pacing-model.js, 4 x 10^5 recipients at 20k/s, `maxRate`
 * 100,000: the third discovery's hold went, +10.3% over limit-bound -> +6.7%).
 */
const QUICK_REFUSAL_CUTS = 2;

/**
 * The pacing of one delivery channel, driven by what the channel answers
 * (docs/delivery.md, "Pacing by the channel's health"). One per channel per
 * executor process, shared by every task sending through it.
 *
 * - A send rate in recipients per second, kept by virtual scheduling (GCRA):
 *   a send of n recipients is admitted when the channel's schedule is at
 *   most `burstMs` ahead of now, and pushes the schedule n / rate further.
 *   A batch larger than the burst still goes whole; the next one waits it off.
 * - AIMD: while the channel accepts, the rate rises by `increasePerSecond`
 *   for every second of acceptance (a hold is not acceptance), up to
 *   `maxRate`. After a cut, the rate it cut from is the channel's ceiling:
 *   the rise is slow (1% of it per second at most), so a channel that
 *   throttles at a fixed quota is probed every several seconds, not every
 *   batch; 20% above the ceiling without a cut, it is forgotten. A throttle
 *   or a rise in latency (its moving average above both `latencyFloorMs` and
 *   `latencyRiseFactor` times the lowest average seen) cuts it by
 *   `decreaseFactor` (from the rate actually sent, when lower: SentRate),
 *   down to `minRate`, at most once per `cutSpacingMs`
 *   (the answers of sends already in flight when a cut happens are the same
 *   news, not new news); one that comes while probing (near the ceiling, or
 *   above where the last cut put it), seconds after the last cut, cuts it to
 *   90% only; one within a quarter second of resuming from the last cut's
 *   hold, that cut not yet settled, by `decreaseFactor` twice
 *   (QUICK_REFUSAL_CUTS). A new part of a shared
 *   budget scales the rate and the ceiling (`rescale`); a larger part may
 *   also lift the rate to its share of what every sender sent together.
 * - Retry-After is honoured exactly: nothing is admitted before it ends.
 * - A circuit breaker: `failureThreshold` failures in a row (5xx, timeouts,
 *   refused connections) open it; each failure before that waits
 *   `failureDelayMs`, doubled per further failure (at most `openMs`). Open,
 *   nothing is admitted for `openMs`; then it is half-open and admits one
 *   send, a probe: accepted, the breaker closes; failed, it opens again.
 *
 * Pure: every call is given the time (epoch ms, from the caller's injected
 * clock); it never reads a clock or sets a timer.
 */
export class ChannelPacing {
  private options: ChannelPacingOptions;
  private currentRate: number;
  /** The virtual time (epoch ms) the next admitted send is scheduled at. */
  private schedule: number;
  private lastRaise: number;
  private lastCut = -Infinity;
  private holdUntil = -Infinity;
  private holdReason: WaitReason = 'throttled';
  private detail = '';
  private failures = 0;
  private breaker: BreakerState = 'closed';
  private openUntil = -Infinity;
  private probeInFlight = false;
  private latency: number | undefined;
  private baseline: number | undefined;
  /** The rate the last cut came from: where the channel pushed back. */
  private ceiling: number | undefined;
  /** The rate the last cut set: a throttle after climbing above it, seconds later, is a probe's. */
  private landing: number | undefined;
  private readonly sent = new SentRate(SENT_WINDOW_MS);
  /** When sending could last resume: the start, or the end of the last hold. */
  private sendingSince: number;

  constructor(options: ChannelPacingOptions, now: number) {
    checkOptions(options);
    this.options = { ...options };
    this.currentRate = options.initialRate;
    this.schedule = now;
    this.lastRaise = now;
    this.sendingSince = now;
  }

  get rate(): number {
    return this.currentRate;
  }

  /** The rate's bounds now: `maxRate` is the channel's limit. */
  get limits(): ChannelLimits {
    return { minRate: this.options.minRate, maxRate: this.options.maxRate };
  }

  /**
   * Changes the rate's bounds at run time (an admin's new limit after a
   * channel's 429s, docs/delivery.md): the current rate is moved into them at
   * once, and AIMD goes on between them. Checked as at construction
   * (0 < minRate <= maxRate); a bad change leaves the pacing as it was.
   */
  setLimits(limits: Partial<ChannelLimits>): ChannelLimits {
    const next = { ...this.options, ...limits };
    checkChannelLimits(next);
    // New bounds (an admin's, or a new share of the budget): the old ceiling was found within others.
    if (next.maxRate !== this.options.maxRate) this.ceiling = this.landing = undefined;
    this.options = next;
    this.currentRate = Math.min(Math.max(this.currentRate, next.minRate), next.maxRate);
    return this.limits;
  }

  /**
   * This sender's part of the channel's budget changed (a new split among
   * executors): the bounds become `limits` and the rate, and the ceiling if
   * one is known, are scaled by `factor` (new part / old part), so the
   * senders together keep the rate they had found, instead of each keeping
   * its old rate (the first split of a start at `initialRate` would put the
   * channel at senders x initialRate).
   *
   * With a larger part, `sent` (when the caller knows it) lifts the rate to
   * this sender's new part of what every sender sent at together (its own
   * `sendingRate` and the peers' told ones), at most `maxRate`: scaling
   * keeps its old proportion, so one that had sent less than its part (its
   * CPU, a relayed cut from a low sent rate) and is left alone climbed the
   * rest at 1% of its small ceiling a second. Never a cut: the told rates
   * are at most what each pacing allowed and gaps in the work lower them,
   * so a rate set from them fell with every split. After a lift a settled
   * throttle from above the scaled rate is a probe's (the gentle cut), and
   * the sent rate a cut starts from counts from `sent.now`.
   */
  rescale(limits: ChannelLimits, factor: number, sent?: SendersRate): ChannelLimits {
    if (!(Number.isFinite(factor) && factor > 0))
      throw new ValidationError(`channel pacing rescale factor must be a finite number above 0 (got ${factor})`, {
        field: 'factor',
        factor,
      });
    if (sent !== undefined && !(Number.isFinite(sent.rate) && sent.rate >= 0 && Number.isFinite(sent.now)))
      throw new ValidationError(
        `channel pacing rescale sent.rate must be a finite number, at least 0, and sent.now a time (got ${sent.rate}, ${sent.now})`,
        { field: 'sent', rate: sent.rate, now: sent.now },
      );
    const next = { ...this.options, ...limits };
    checkChannelLimits(next);
    this.options = next;
    this.currentRate = Math.min(Math.max(this.currentRate * factor, next.minRate), next.maxRate);
    if (this.ceiling !== undefined) this.ceiling *= factor;
    if (this.landing !== undefined) this.landing *= factor;
    if (factor > 1 && sent !== undefined) this.liftTo(Math.min(sent.rate, next.maxRate), sent.now);
    return this.limits;
  }

  /**
   * The rate this sender sends at now: its pacing rate, or what it sent over
   * the last second (since the last hold's end) when that was less (its CPU,
   * its share of the work). What it tells the other senders, for their
   * `rescale`'s `sent`.
   */
  sendingRate(now: number): number {
    const sent = this.sent.rate(now, this.sendingSince, SENT_MIN_SPAN_MS);
    // Nothing sent (a gap between batches): no measure, as for a cut.
    return sent === undefined || sent === 0 ? this.currentRate : Math.min(this.currentRate, sent);
  }

  /** Admits a send of `count` recipients now (wait 0), or says how long to wait before asking again, and why. */
  admit(count: number, now: number): Admission {
    if (this.breaker === 'open') {
      if (now < this.openUntil) return { wait: Math.ceil(this.openUntil - now), reason: 'open' };
      this.breaker = 'half-open';
    }
    if (this.breaker === 'half-open') {
      if (this.probeInFlight) return { wait: PROBE_POLL_MS, reason: 'probing' };
      this.probeInFlight = true;
      this.schedule = Math.max(this.schedule, now) + (count * 1000) / this.currentRate;
      this.sent.record(count, now);
      return { wait: 0 };
    }
    if (now < this.holdUntil) return { wait: Math.ceil(this.holdUntil - now), reason: this.holdReason };
    const ahead = this.schedule - now;
    if (ahead > this.options.burstMs) return { wait: Math.ceil(ahead - this.options.burstMs), reason: 'rate' };
    this.schedule = Math.max(this.schedule, now) + (count * 1000) / this.currentRate;
    this.sent.record(count, now);
    return { wait: 0 };
  }

  /** The channel accepted a send (all or part of its recipients) after `latencyMs`. */
  accepted(latencyMs: number, now: number): void {
    this.failures = 0;
    this.probeInFlight = false;
    this.breaker = 'closed';
    this.detail = '';
    if (this.latencyRose(latencyMs)) {
      this.cut(now, -Infinity, 'latency');
      return;
    }
    const seconds = Math.max(0, now - this.lastRaise) / 1000;
    this.currentRate = Math.min(this.options.maxRate, this.raised(seconds));
    this.lastRaise = now;
  }

  /** The channel throttled a send: hold until Retry-After (exactly) or `throttleDelayMs`, and cut the rate. */
  throttled(retryAfterMs: number | undefined, detail: string, now: number): void {
    this.probeInFlight = false;
    if (this.breaker === 'half-open') this.breaker = 'closed'; // it answered: it is up, only busy
    const until = now + (retryAfterMs ?? this.options.throttleDelayMs);
    const resumedAt = this.holdUntil;
    if (until >= this.holdUntil) {
      this.holdUntil = until;
      this.holdReason = 'throttled';
    }
    this.detail = detail;
    this.cut(now, resumedAt);
    // The hold is not acceptance (the rate rises again from its end) nor time the sender could send.
    this.lastRaise = Math.max(this.lastRaise, this.holdUntil);
    this.sendingSince = Math.max(this.sendingSince, this.holdUntil);
  }

  /** A send failed (no answer in time, 5xx, connection refused). */
  failed(detail: string, now: number): void {
    this.probeInFlight = false;
    this.detail = detail;
    this.failures++;
    if (this.breaker === 'half-open' || this.failures >= this.options.failureThreshold) {
      this.breaker = 'open';
      this.openUntil = now + this.options.openMs;
      this.sendingSince = Math.max(this.sendingSince, this.openUntil);
      return;
    }
    const delay = Math.min(this.options.openMs, this.options.failureDelayMs * 2 ** (this.failures - 1));
    if (now + delay >= this.holdUntil) {
      this.holdUntil = now + delay;
      this.holdReason = 'failing';
    }
    this.sendingSince = Math.max(this.sendingSince, this.holdUntil);
  }

  /** What the channel's pacing is now, for metrics and status. */
  status(now: number): ChannelStatus {
    const breaker = this.breaker === 'open' && now >= this.openUntil ? 'half-open' : this.breaker;
    if (breaker !== 'closed') return { rate: this.currentRate, breaker, held: { reason: 'open', detail: this.detail } };
    if (now < this.holdUntil)
      return { rate: this.currentRate, breaker, held: { reason: this.holdReason, detail: this.detail } };
    return { rate: this.currentRate, breaker };
  }

  /** Lifts the rate to `rate` when that is higher: this sender's part of what the senders sent together (`rescale`'s `sent`). */
  private liftTo(rate: number, now: number): void {
    if (rate <= this.currentRate) return;
    if (this.ceiling !== undefined) {
      // A throttle from above the scaled rate, settled, found the limit between the two: a probe's.
      this.landing = this.currentRate;
      this.ceiling = Math.max(this.ceiling, rate);
    }
    this.currentRate = rate;
    this.sendingSince = Math.max(this.sendingSince, now);
  }

  /**
   * Cuts the rate (at most once per `cutSpacingMs`); `resumedAt`: when the
   * last hold before this cut's news ended; `cause`: a throttle (the channel
   * said no) or a rise in latency.
   */
  private cut(now: number, resumedAt = -Infinity, cause: 'throttle' | 'latency' = 'throttle'): void {
    this.lastRaise = now;
    if (now - this.lastCut < this.options.cutSpacingMs) return;
    const sentRate = this.sent.rate(now, this.sendingSince, SENT_MIN_SPAN_MS);
    // Nothing sent in the window (a late answer): no measure, the pacing's rate stands.
    const from = sentRate === undefined || sentRate === 0 ? this.currentRate : Math.min(this.currentRate, sentRate);
    const settled = now - this.lastCut >= SETTLED_MS;
    // Probing: near the ceiling, or climbed above where the last cut put it. A throttle there, settled, found the
    // limit between the two (a sender short of its pacing rate has a ceiling far above what it sends, and was
    // cut deep at each probe: seconds at 70% of the limit, climbing back at 1% of that ceiling a second).
    const probing =
      (this.ceiling !== undefined && from >= this.ceiling * NEAR_CEILING) ||
      (this.landing !== undefined && from > this.landing);
    const factor = settled && probing ? GENTLE_CUT : this.deepCut(now, settled, resumedAt);
    this.lastCut = now;
    // The ceiling stays the pacing's rate: a sender short of it did not find the channel's limit there,
    // and the climb back (1% of the ceiling per second) must not crawl from a rate its CPU set.
    // A latency rise says no limit: a run of them (a receiver's host stalled for seconds) walks the rate
    // down to minRate, and a ceiling lowered with each would leave it climbing 1% of minRate a second
    // for minutes after the stall (bench/RESULTS.md, "fed the stall watch"). The highest stands.
    this.ceiling = cause === 'latency' ? Math.max(this.ceiling ?? 0, this.currentRate) : this.currentRate;
    this.currentRate = Math.max(this.options.minRate, from * factor);
    this.landing = this.currentRate;
    // What was scheduled at the old rate is not owed at the new one.
    this.schedule = Math.min(this.schedule, now + this.options.burstMs);
  }

  /** The factor of a cut that is not a probe's: `decreaseFactor`, or its power QUICK_REFUSAL_CUTS at a quick refusal. */
  private deepCut(now: number, settled: boolean, resumedAt: number): number {
    // Resumed from the last cut's hold (a hold ended after that cut), and refused before a rate could be measured.
    const resumed = resumedAt > this.lastCut && now >= resumedAt;
    const quick = !settled && resumed && now - resumedAt < SENT_MIN_SPAN_MS;
    return quick ? this.options.decreaseFactor ** QUICK_REFUSAL_CUTS : this.options.decreaseFactor;
  }

  /**
   * The rate after `seconds` of acceptance: the full increase while no
   * ceiling is known; after a cut, at most PROBE_PER_SECOND of the ceiling
   * per second, from wherever the cut put it. (Climbing back fast to near
   * the ceiling made each cut worth 15%, not 30%: against a 20k/s quota it
   * took five 429s and their holds to find it, where three do now.)
   */
  private raised(seconds: number): number {
    const increase = this.options.increasePerSecond * seconds;
    if (this.ceiling === undefined) return this.currentRate + increase;
    const next = this.currentRate + Math.min(increase, this.ceiling * PROBE_PER_SECOND * seconds);
    if (next > this.ceiling * FORGET_ABOVE) this.ceiling = this.landing = undefined;
    return next;
  }

  /** Folds a latency sample in; true when the average is now a rise over the lowest seen. */
  private latencyRose(latencyMs: number): boolean {
    this.latency = this.latency === undefined ? latencyMs : this.latency + LATENCY_WEIGHT * (latencyMs - this.latency);
    if (this.baseline === undefined || this.latency < this.baseline) this.baseline = this.latency;
    else this.baseline += BASELINE_DRIFT * (this.latency - this.baseline);
    return this.latency > this.options.latencyFloorMs && this.latency > this.baseline * this.options.latencyRiseFactor;
  }
}
