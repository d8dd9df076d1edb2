#!/usr/bin/env node
/**
 * A model of bench/channel-throttle.js's discovered-limit run, without
 * processes: the real ChannelPacing (core, compiled) of `--executors`
 * executors against a token-bucket receiver (`--limit` recipients/s, a burst
 * of half a second (`--burst-ms`), 429 + Retry-After in whole seconds above it, as
 * @herald/testing's rateLimitedPolicy), in simulated time (an event queue,
 * no timers), so a change to the controller can be judged in seconds and
 * without the machine's load. Each executor sends batches of 500, at most 4
 * in flight, each answered after 4-12 ms; with the relay (`--relay cut`,
 * the default) a 429 is told to the other executors 3 ms later and each
 * takes it as its own (PacedDeliveryGateway.throttledByPeer); `--relay hold`
 * makes them only hold for the Retry-After, their pacing untouched (an
 * alternative weighed in docs/delivery.md); `--relay none` tells no one.
 * The budget is split by demand as production's channel-budget.ts splits it
 * (`--split demand`, the default): every second (each executor at its own
 * phase) an executor tells the others its demand (the most recipients it had
 * in hand at once: up to 8 batches), computes its part (core demandFraction,
 * partToApply) and rescales its pacing when the part moved by more than 10%
 * (as the gateway's shareByDemand); an executor out of work tells 0
 * 250 ms after its last answer without waiting for its report (`--idle-tell
 * off`: only at its reports); `--share-rise next-report` applies every rise
 * one report later (the rule before partToApply). With each demand an
 * executor tells its sent rate (`--tell-rate on`, the default), and a rise
 * of its part lifts its rate to that part of the senders' rates together
 * (ChannelPacing.rescale's `sent`); `off`: the rate is only scaled.
 * `--hear-fall on` (the default, as channel-budget.ts): an executor that
 * hears a peer tell demand 0 (out of work) computes its part at once (its
 * own demand as it last told it), not at its next report; `off`: at its
 * next report (the rule before). `--split even` keeps
 * the first even split. `--skew` is the part of the recipients the first
 * executor holds (0.5: both finish together; 0.6 is about what the
 * production runs showed, one executor sending alone for the last 5-8 s).
 * `--sender-max` caps what each executor can send per second whatever its
 * pacing admits (a loaded machine's executor, as in the production runs,
 * where two executors sent some 22-25k/s in all; a list, one cap per
 * executor, the last for the rest: `--sender-max 14000,9000`); `--alone-max` is that cap
 * for an executor whose peers have no work left (the CPU they free: two
 * executors on a 2-core machine; default the largest `--sender-max`).
 * `--unit-batches n --unit-gap-ms g`: an executor's work comes as units of n
 * batches with g ms between them (the next unit on its way from the
 * dispatcher): in a gap it has nothing in hand, tells demand 0 after 250 ms,
 * and a relayed cut finds its sent rate low (production's timelines show
 * an executor silent for 2-3 s between units). Default: one unit, no gaps.
 *
 * It is a model: no CPU limits, no unit scheduling. Its figures are for
 * comparing controllers, not for the results table; those come from
 * bench/channel-throttle.js.
 *
 *   node bench/channel-pacing-model.js [--limit 20000] [--burst-ms 500] [--recipients 400000] [--max-rate 100000]
 *     [--executors 2] [--relay cut|hold|none] [--split demand|even] [--skew 0.5]
 *     [--share-rise at-once|next-report] [--idle-tell on|off] [--tell-rate on|off] [--hear-fall on|off] [--sender-max <recipients/s>] [--alone-max <recipients/s>]
 *     [--unit-batches <n> --unit-gap-ms <ms>] [--seed 1] [--trace]
 */
const { DEFAULTS } = require('@herald/core/config');
const { ChannelPacing, demandFraction, partToApply } = require('@herald/core/pacing');
const { arg } = require('./lib');

const BATCH = 500;
const IN_FLIGHT = 4;
const LATENCY_MS = 8;
const RELAY_MS = 3;
const SETTLE_MS = 10_000;
/** As load.reportIntervalMs, DEMAND_FLOOR and the gateway's SHARE_STEP. */
const REPORT_MS = 1000;
const DEMAND_FLOOR = 0.1;
const SHARE_STEP = 0.1;
/** As channel-budget.ts's IDLE_TELL_MS: an executor out of work tells 0 this long after its last batch. */
const IDLE_TELL_MS = 250;
/** The most batches an executor has in hand at once (its demand's unit). */
const IN_HAND = 8;

/** The defaults of delivery.webhook (core DEFAULTS) but maxRate, mapped as the executor's pacedChannel maps them. */
function pacingOptions(maxRate) {
  const { maxAttempts, retryDelayMs, pacing } = DEFAULTS.delivery.webhook;
  const { breakerOpenMs, maxHoldMs: _maxHoldMs, ...rates } = pacing;
  return {
    ...rates,
    initialRate: Math.min(rates.initialRate, maxRate),
    maxRate,
    openMs: breakerOpenMs,
    failureThreshold: maxAttempts,
    failureDelayMs: retryDelayMs,
  };
}

/** A min-heap-free event queue: few events are pending at once, so a sorted insert is enough. */
class Events {
  queue = [];
  at(time, run) {
    let i = this.queue.length;
    while (i > 0 && this.queue[i - 1].time > time) i--;
    this.queue.splice(i, 0, { time, run });
  }
  drain() {
    while (this.queue.length > 0) {
      const { time, run } = this.queue.shift();
      run(time);
    }
  }
}

function model(o) {
  let seed = o.seed;
  const random = () => (seed = (seed * 16_807) % 2_147_483_647) / 2_147_483_647;
  const options = pacingOptions(o.maxRate);
  const batches = Math.ceil(o.recipients / BATCH);
  const firstBatches = o.executors === 1 ? batches : Math.round(batches * o.skew);
  const executors = Array.from({ length: o.executors }, (_, i) => {
    const pacing = new ChannelPacing(options, 0);
    pacing.rescale({ minRate: options.minRate / o.executors, maxRate: options.maxRate / o.executors }, 1 / o.executors);
    return {
      pacing,
      left: i === 0 ? firstBatches : Math.ceil((batches - firstBatches) / (o.executors - 1)),
      inFlight: 0,
      waking: false,
      heldUntil: 0,
      readyAt: 0,
      fraction: 1 / o.executors,
      last: undefined,
      peak: 0,
      senderMax: o.senderMax[Math.min(i, o.senderMax.length - 1)],
      heard: new Map(),
      toldRate: undefined,
      /** Batches sent of the current unit, and when the next unit comes (a gap: nothing in hand). */
      ofUnit: 0,
      gapUntil: 0,
    };
  });
  const burst = (o.limit * o.burstMs) / 1000;
  let tokens = burst;
  let filled = 0;
  const answers = []; // [time, throttled]
  const take = (n, time) => {
    tokens = Math.min(burst, tokens + ((time - filled) * o.limit) / 1000);
    filled = time;
    if (tokens >= n) {
      tokens -= n;
      return 0;
    }
    return ((n - tokens) * 1000) / o.limit;
  };
  const events = new Events();
  const waiting = (executor, now) => (now < executor.gapUntil ? 0 : executor.left);
  const inHand = (executor, now) => Math.min(waiting(executor, now) + executor.inFlight, IN_HAND) * BATCH;
  const idle = (executor, now) => waiting(executor, now) === 0 && executor.inFlight === 0;
  const senderMax = (executor) =>
    executors.some((e) => e !== executor && e.left + e.inFlight > 0) ? executor.senderMax : o.aloneMax;
  const tellIdle = (executor, now) => {
    if (!idle(executor, now) || executor.last === undefined || executor.last.told === 0) return;
    executor.peak = 0;
    report(executor, now, false);
  };
  const report = (executor, now, periodic = true) => {
    const own = executor.peak;
    executor.peak = inHand(executor, now);
    apply(executor, own, now);
    // As channel-budget.ts: the rate told after the part is applied, while it has work; out of work, the last such.
    if (own > 0 || executor.toldRate === undefined) executor.toldRate = executor.pacing.sendingRate(now);
    const told = { demand: own, rate: executor.toldRate };
    for (const peer of executors.filter((e) => e !== executor))
      events.at(now + RELAY_MS, (time) => {
        const before = peer.heard.get(executor)?.demand;
        peer.heard.set(executor, told);
        if (o.hearFall && told.demand === 0 && before !== undefined && before > 0 && peer.last !== undefined)
          apply(peer, peer.last.told, time);
      });
    if (periodic && executors.some((e) => e.left > 0)) events.at(now + REPORT_MS, (time) => report(executor, time));
  };
  /** Computes the executor's part with `own` its demand told, and rescales its pacing when the part moved. */
  const apply = (executor, own, now) => {
    const peers = executors.filter((e) => e !== executor);
    const fraction = demandFraction(
      own,
      peers.map((p) => executor.heard.get(p)?.demand),
      DEMAND_FLOOR,
    );
    const part =
      o.shareRise === 'next-report'
        ? Math.min(fraction, executor.last?.fraction ?? 1 / o.executors)
        : partToApply(fraction, own, executor.last, o.executors);
    executor.last = { fraction, told: own };
    if (Math.abs(part - executor.fraction) <= SHARE_STEP * executor.fraction) return;
    const together = peers.reduce(
      (sum, p) => sum + (executor.heard.get(p)?.rate ?? 0),
      executor.pacing.sendingRate(now),
    );
    executor.pacing.rescale(
      { minRate: options.minRate * part, maxRate: options.maxRate * part },
      part / executor.fraction,
      o.tellRate ? { rate: together * part, now } : undefined,
    );
    executor.fraction = part;
    send(executor, now);
  };
  const send = (executor, now) => {
    while (executor.left > 0 && executor.inFlight < IN_FLIGHT) {
      const held = Math.max(executor.heldUntil, executor.readyAt, executor.gapUntil) - now;
      const admission = held > 0 ? { wait: held } : executor.pacing.admit(BATCH, now);
      if (admission.wait > 0) {
        if (!executor.waking) {
          executor.waking = true;
          events.at(now + admission.wait, (time) => {
            executor.waking = false;
            send(executor, time);
          });
        }
        return;
      }
      executor.left--;
      executor.inFlight++;
      executor.peak = Math.max(executor.peak, inHand(executor, now));
      executor.readyAt = Math.max(executor.readyAt, now) + (BATCH * 1000) / senderMax(executor);
      if (++executor.ofUnit === o.unitBatches) {
        executor.ofUnit = 0;
        executor.gapUntil = now + o.unitGapMs;
      }
      const latency = LATENCY_MS * (0.5 + random());
      events.at(now + latency / 2, (arrived) => {
        const wait = take(BATCH, arrived);
        answers.push([arrived, wait > 0]);
        events.at(arrived + latency / 2, (answered) => {
          executor.inFlight--;
          if (o.idleTell && idle(executor, answered))
            events.at(answered + IDLE_TELL_MS, (time) => tellIdle(executor, time));
          if (wait === 0) executor.pacing.accepted(latency, answered);
          else {
            executor.left++;
            const retryAfterMs = Math.ceil(wait / 1000) * 1000;
            executor.pacing.throttled(retryAfterMs, '429', answered);
            if (o.relay !== 'none')
              for (const peer of executors.filter((e) => e !== executor))
                events.at(answered + RELAY_MS, (told) => {
                  if (o.relay === 'cut') peer.pacing.throttled(retryAfterMs - RELAY_MS, '429 (relayed)', told);
                  else peer.heldUntil = Math.max(peer.heldUntil, answered + retryAfterMs);
                  send(peer, told);
                });
          }
          send(executor, answered);
        });
      });
    }
  };
  if (o.trace)
    for (let t = 0; t < 60_000; t += 1000)
      events.at(t, (time) => {
        if (executors.some((e) => e.left > 0)) {
          const second = answers.filter((a) => a[0] >= time - 1000 && a[0] < time);
          const throttled = second.filter((a) => a[1]).length;
          console.log(
            `${(time / 1000).toFixed(0)} s: ${executors.map((e) => e.pacing.rate.toFixed(0)).join(' + ')}/s, ` +
              `accepted in the second before ${(second.length - throttled) * BATCH}${throttled > 0 ? `/${throttled}` : ''}`,
          );
        }
      });
  for (const executor of executors) send(executor, 0);
  if (o.split === 'demand')
    for (const executor of executors) events.at(random() * REPORT_MS, (time) => report(executor, time));
  events.drain();
  const accepted = answers.filter((a) => !a[1]);
  const end = Math.max(...accepted.map((a) => a[0]));
  const after = answers.filter((a) => a[0] >= SETTLE_MS);
  const afterAccepted = after.filter((a) => !a[1]).length;
  return {
    seconds: end / 1000,
    bound: o.recipients / o.limit,
    throttled: answers.length - accepted.length,
    afterThrottled: after.length - afterAccepted,
    after: after.length,
    rateAfter: (afterAccepted * BATCH) / ((end - SETTLE_MS) / 1000),
  };
}

const o = {
  limit: Number(arg('--limit', 20_000)),
  burstMs: Number(arg('--burst-ms', 500)),
  recipients: Number(arg('--recipients', 400_000)),
  maxRate: Number(arg('--max-rate', 100_000)),
  executors: Number(arg('--executors', 2)),
  relay: arg('--relay', 'cut'),
  seed: Number(arg('--seed', 1)),
  split: arg('--split', 'demand'),
  skew: Number(arg('--skew', 0.5)),
  shareRise: arg('--share-rise', 'at-once'),
  idleTell: arg('--idle-tell', 'on') === 'on',
  tellRate: arg('--tell-rate', 'on') === 'on',
  hearFall: arg('--hear-fall', 'on') === 'on',
  senderMax: String(arg('--sender-max', Infinity)).split(',').map(Number),
  unitBatches: Number(arg('--unit-batches', Infinity)),
  unitGapMs: Number(arg('--unit-gap-ms', 0)),
  trace: process.argv.includes('--trace'),
};
if (!((o.limit * o.burstMs) / 1000 >= BATCH))
  throw new Error(
    `--burst-ms must let a batch of ${BATCH} through: at least ${(BATCH * 1000) / o.limit} ms at --limit ${o.limit} (got ${o.burstMs})`,
  );
o.aloneMax = Number(arg('--alone-max', Math.max(...o.senderMax)));
const r = model(o);
const pct = (x) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)} %`;
console.log(
  `${o.executors} executors, relay ${o.relay}, split ${o.split} (skew ${o.skew}, rise ${o.shareRise}, idle tell ${o.idleTell ? 'on' : 'off'}, tell rate ${o.tellRate ? 'on' : 'off'}, hear fall ${o.hearFall ? 'on' : 'off'}${Number.isFinite(o.unitBatches) ? `, units of ${o.unitBatches} batches ${o.unitGapMs} ms apart` : ''}${o.senderMax.some(Number.isFinite) ? `, sender max ${o.senderMax}/${o.aloneMax}` : ''}), maxRate ${o.maxRate}, limit ${o.limit}${o.burstMs === 500 ? '' : ` (burst ${o.burstMs} ms)`}: ` +
    `${r.seconds.toFixed(2)} s vs ${r.bound.toFixed(1)} s limit-bound (${pct(r.seconds / r.bound - 1)}); ` +
    `429s ${r.throttled}, after 10 s ${r.afterThrottled} of ${r.after}; rate after 10 s ${r.rateAfter.toFixed(0)}/s (${pct(r.rateAfter / o.limit - 1)})`,
);
