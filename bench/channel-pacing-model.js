#!/usr/bin/env node
/**
 * A model of bench/channel-throttle.js's discovered-limit run, without
 * processes: the real ChannelPacing (core, compiled) of `--executors`
 * executors against a token-bucket receiver (`--limit` recipients/s, a burst
 * of half a second, 429 + Retry-After in whole seconds above it, as
 * @herald/testing's rateLimitedPolicy), in simulated time (an event queue,
 * no timers), so a change to the controller can be judged in seconds and
 * without the machine's load. Each executor sends batches of 500, at most 4
 * in flight, each answered after 4-12 ms; with the relay (`--relay cut`,
 * the default) a 429 is told to the other executors 3 ms later and each
 * takes it as its own (PacedDeliveryGateway.throttledByPeer); `--relay hold`
 * makes them only hold for the Retry-After, their pacing untouched (an
 * alternative weighed in docs/delivery.md); `--relay none` tells no one.
 * The budget is split evenly (ChannelPacing.rescale, as the gateway's
 * shareAmong does). `--sender-max` caps what each executor can send per
 * second whatever its pacing admits (a loaded machine's executor, as in the
 * production runs, where two executors sent some 22-25k/s in all).
 *
 * It is a model: no CPU limits, no unit scheduling, no split by demand. Its
 * figures are for comparing controllers, not for the results table; those
 * come from bench/channel-throttle.js.
 *
 *   node bench/channel-pacing-model.js [--limit 20000] [--recipients 400000] [--max-rate 100000]
 *     [--executors 2] [--relay cut|hold|none] [--sender-max <recipients/s>] [--seed 1] [--trace]
 */
const { DEFAULTS } = require('@herald/core/config');
const { ChannelPacing } = require('@herald/core/pacing');
const { arg } = require('./lib');

const BATCH = 500;
const IN_FLIGHT = 4;
const LATENCY_MS = 8;
const RELAY_MS = 3;
const SETTLE_MS = 10_000;

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
  const executors = Array.from({ length: o.executors }, () => {
    const pacing = new ChannelPacing(options, 0);
    pacing.rescale({ minRate: options.minRate / o.executors, maxRate: options.maxRate / o.executors }, 1 / o.executors);
    return {
      pacing,
      left: Math.ceil(o.recipients / o.executors / BATCH),
      inFlight: 0,
      waking: false,
      heldUntil: 0,
      readyAt: 0,
    };
  });
  const burst = o.limit / 2;
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
  const send = (executor, now) => {
    while (executor.left > 0 && executor.inFlight < IN_FLIGHT) {
      const held = Math.max(executor.heldUntil, executor.readyAt) - now;
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
      executor.readyAt = Math.max(executor.readyAt, now) + (BATCH * 1000) / o.senderMax;
      const latency = LATENCY_MS * (0.5 + random());
      events.at(now + latency / 2, (arrived) => {
        const wait = take(BATCH, arrived);
        answers.push([arrived, wait > 0]);
        events.at(arrived + latency / 2, (answered) => {
          executor.inFlight--;
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
        if (executors.some((e) => e.left > 0))
          console.log(`${(time / 1000).toFixed(0)} s: ${executors.map((e) => e.pacing.rate.toFixed(0)).join(' + ')}/s`);
      });
  for (const executor of executors) send(executor, 0);
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
  recipients: Number(arg('--recipients', 400_000)),
  maxRate: Number(arg('--max-rate', 100_000)),
  executors: Number(arg('--executors', 2)),
  relay: arg('--relay', 'cut'),
  seed: Number(arg('--seed', 1)),
  senderMax: Number(arg('--sender-max', Infinity)),
  trace: process.argv.includes('--trace'),
};
const r = model(o);
const pct = (x) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)} %`;
console.log(
  `${o.executors} executors, relay ${o.relay}, maxRate ${o.maxRate}, limit ${o.limit}: ` +
    `${r.seconds.toFixed(2)} s vs ${r.bound.toFixed(1)} s limit-bound (${pct(r.seconds / r.bound - 1)}); ` +
    `429s ${r.throttled}, after 10 s ${r.afterThrottled} of ${r.after}; rate after 10 s ${r.rateAfter.toFixed(0)}/s (${pct(r.rateAfter / o.limit - 1)})`,
);
