import { LATENCY_BUCKETS_SECONDS, type Meter } from '@herald/core/ports';

/** A delivery channel's metrics (docs/delivery.md, "Metrics"), each labelled by channel. */
export function channelMetrics(meter: Meter) {
  const labels = ['channel'];
  return {
    sent: meter.counter(
      'herald_channel_accepted_recipients_total',
      'Recipients the channel accepted (its rate is the send rate)',
      labels,
    ),
    limit: meter.gauge(
      'herald_channel_rate_limit',
      "The pacing's current send rate limit, recipients per second",
      labels,
    ),
    throttled: meter.counter('herald_channel_throttled_total', 'Sends the channel throttled (429)', labels),
    peerThrottles: meter.counter(
      'herald_channel_peer_throttles_total',
      "Throttles another executor's channel relayed (channel.throttled): this process held its sending too",
      labels,
    ),
    failed: meter.counter(
      'herald_channel_failed_total',
      'Sends that failed (5xx, 408, no answer in time, no connection)',
      labels,
    ),
    refused: meter.counter(
      'herald_channel_refused_batches_total',
      'Batches the channel refused whole (e.g. 400 on the payload); their recipients are dead letters',
      labels,
    ),
    deadLetters: meter.counter(
      'herald_channel_dead_letters_total',
      'Recipients the channel rejected for good, by its reason; never sent again',
      ['channel', 'reason'],
    ),
    latency: meter.histogram(
      'herald_channel_latency_seconds',
      'Time from a send to its answer (accepted, throttled or refused)',
      labels,
      LATENCY_BUCKETS_SECONDS,
    ),
    breaker: meter.gauge(
      'herald_channel_breaker_state',
      "The channel's circuit breaker: 0 closed, 1 half-open, 2 open",
      labels,
    ),
    opened: meter.counter(
      'herald_channel_breaker_opened_total',
      "Times the channel's circuit breaker opened (failures in a row, or a failed probe)",
      labels,
    ),
    held: meter.gauge(
      'herald_channel_held',
      '1 while sending is held (throttled, failing, or the breaker not closed), else 0',
      labels,
    ),
  };
}

export type ChannelMetrics = ReturnType<typeof channelMetrics>;
