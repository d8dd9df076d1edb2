import { ErrorCodes, HeraldError } from '@herald/core';
import type { ChannelPacingOptions } from '@herald/core/pacing';
import type { Delivery, DeliveryGateway, DeliveryResult, Meter } from '@herald/core/ports';
import { rejectsWithCode, waitFor } from '@herald/testing';
import { BATCH_REFUSED, PacedDeliveryGateway } from './paced-gateway';

/** What the fake channel does with the next send: answer, or throw one of the outcomes. */
type Step = DeliveryResult | HeraldError | 'hang';

/** A channel that answers each send with its next step (then accepts everything), recording what it was sent. */
class ScriptedChannel implements DeliveryGateway {
  readonly sent: Delivery[] = [];
  private readonly steps: Step[] = [];
  private released?: () => void;

  next(...steps: Step[]): void {
    this.steps.push(...steps);
  }

  release(): void {
    this.released?.();
  }

  async deliver(delivery: Delivery): Promise<DeliveryResult> {
    this.sent.push(delivery);
    const step = this.steps.shift() ?? { rejected: [] };
    if (step === 'hang') {
      await new Promise<void>((resolve) => (this.released = resolve));
      throw new HeraldError(ErrorCodes.UNAVAILABLE, 'no answer within 10 ms', { retriable: true });
    }
    if (step instanceof HeraldError) throw step;
    return step;
  }

  async close(): Promise<void> {}
}

/** A Meter that keeps counter totals and gauge values by name and labels. */
function recordingMeter(): Meter & { value(name: string, labels: Record<string, string>): number } {
  const values = new Map<string, number>();
  const key = (name: string, labels: Record<string, string> = {}) => `${name}${JSON.stringify(labels)}`;
  return {
    counter: (name) => ({
      inc: (labels, by = 1) => values.set(key(name, labels), (values.get(key(name, labels)) ?? 0) + by),
    }),
    gauge: (name) => ({ set: (value, labels) => values.set(key(name, labels), value) }),
    histogram: () => ({ observe() {} }),
    value: (name, labels) => values.get(key(name, labels)) ?? 0,
  };
}

const pacing: ChannelPacingOptions = {
  initialRate: 1_000_000,
  minRate: 100_000,
  maxRate: 1_000_000,
  increasePerSecond: 0,
  decreaseFactor: 0.5,
  burstMs: 1000,
  cutSpacingMs: 0,
  throttleDelayMs: 20,
  latencyFloorMs: 10_000,
  latencyRiseFactor: 2,
  failureThreshold: 2,
  failureDelayMs: 1,
  openMs: 30,
};

const throttled = (retryAfterMs?: number) =>
  new HeraldError(ErrorCodes.DELIVERY_THROTTLED, 'throttled, HTTP 429', {
    retriable: true,
    details: retryAfterMs === undefined ? {} : { retryAfterMs },
  });
const failed = () => new HeraldError(ErrorCodes.UNAVAILABLE, 'HTTP 503', { retriable: true });
const refused = () => new HeraldError(ErrorCodes.DELIVERY_REJECTED, 'refused, HTTP 400 payload too large');

const batch = (taskId: number, ...uins: number[]): Delivery => ({
  taskId,
  uins: Uint32Array.from(uins),
  content: { body: 'hi' },
  atLogin: false,
});

describe('PacedDeliveryGateway', () => {
  let channel: ScriptedChannel;
  let meter: ReturnType<typeof recordingMeter>;
  let gateway: PacedDeliveryGateway;
  const labels = { channel: 'webhook' };
  function open(overrides: Partial<ChannelPacingOptions> = {}, maxHoldMs = 10_000): void {
    gateway = new PacedDeliveryGateway(channel, {
      channel: 'webhook',
      pacing: { ...pacing, ...overrides },
      maxHoldMs,
      meter,
    });
  }
  beforeEach(() => {
    channel = new ScriptedChannel();
    meter = recordingMeter();
    open();
  });
  afterEach(async () => {
    channel.release();
    await gateway.close();
  });

  it('sends a throttled batch again once Retry-After has passed, and cuts the rate', async () => {
    channel.next(throttled(30));
    expect(await gateway.deliver(batch(1, 1, 2))).toEqual({ rejected: [] });
    expect(channel.sent).toHaveLength(2);
    expect(meter.value('herald_channel_throttled_total', labels)).toBe(1);
    expect(meter.value('herald_channel_rate_limit', labels)).toBe(500_000);
    expect(meter.value('herald_channel_accepted_recipients_total', labels)).toBe(2);
  });

  it("holds every task's batches while the channel is throttled: one pacing per channel", async () => {
    channel.next(throttled(60_000));
    const first = gateway.deliver(batch(1, 1));
    await waitFor(() => gateway.status().held?.reason === 'throttled', { timeoutMs: 5000 });
    const second = gateway.deliver(batch(2, 5));
    // Both wait out the same Retry-After; the second task's batch has not been sent meanwhile.
    expect(channel.sent.map((d) => d.taskId)).toEqual([1]);
    await gateway.close();
    await rejectsWithCode(first, 'UNAVAILABLE');
    await rejectsWithCode(second, 'UNAVAILABLE');
  });

  it('opens the breaker after failures in a row, holds, then a probe closes it and the batch goes', async () => {
    channel.next(failed(), failed());
    await gateway.deliver(batch(1, 7));
    expect(channel.sent).toHaveLength(3);
    expect(meter.value('herald_channel_failed_total', labels)).toBe(2);
    expect(gateway.status()).toMatchObject({ breaker: 'closed' });
    expect(meter.value('herald_channel_breaker_state', labels)).toBe(0);
  });

  it('reports the breaker open, with the reason, while it holds', async () => {
    open({ openMs: 60_000 });
    channel.next(failed(), failed());
    const pending = gateway.deliver(batch(1, 7));
    await waitFor(() => gateway.status().breaker === 'open', { timeoutMs: 5000 });
    expect(gateway.status().held).toEqual({ reason: 'open', detail: 'HTTP 503' });
    expect(meter.value('herald_channel_breaker_state', labels)).toBe(2);
    await gateway.close();
    await rejectsWithCode(pending, 'UNAVAILABLE');
  });

  it("tells each change of the channel's hold, in a task report's words", async () => {
    open({ openMs: 60_000 });
    const holds: unknown[] = [];
    const unwatch = gateway.watchHold((hold) => holds.push(hold));
    channel.next(throttled(40));
    await gateway.deliver(batch(1, 1));
    expect(holds).toEqual([{ state: 'throttled', reason: 'throttled, HTTP 429' }, undefined]);
    channel.next(failed(), failed());
    const pending = gateway.deliver(batch(1, 2));
    await waitFor(() => gateway.hold()?.state === 'unavailable', { timeoutMs: 5000 });
    expect(gateway.hold()).toEqual({ state: 'unavailable', reason: 'HTTP 503' });
    unwatch();
    await gateway.close();
    await rejectsWithCode(pending, 'UNAVAILABLE');
    expect(holds.slice(2)).toEqual([{ state: 'unavailable', reason: 'HTTP 503' }]);
  });

  it('gives a batch back, UNAVAILABLE and saying why, when the hold would pass maxHoldMs', async () => {
    open({ openMs: 60_000 }, 1000);
    channel.next(failed(), failed());
    const error = await gateway.deliver(batch(1, 7)).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'UNAVAILABLE', retriable: true });
    expect((error as Error).message).toBe('channel webhook throttled / unavailable: HTTP 503');
  });

  it('times out a hanging send as a failure and sends again', async () => {
    channel.next('hang');
    const pending = gateway.deliver(batch(1, 3));
    await waitFor(() => channel.sent.length === 1, { timeoutMs: 5000 });
    channel.release();
    await pending;
    expect(channel.sent).toHaveLength(2);
  });

  it('counts the recipients the channel rejects as dead letters by reason, and does not send them again', async () => {
    channel.next({
      rejected: [
        { uin: 2, reason: 'unregistered' },
        { uin: 3, reason: 'unregistered' },
        { uin: 4, reason: 'bad_device_token' },
      ],
    });
    const result = await gateway.deliver(batch(1, 1, 2, 3, 4));
    expect(result.rejected).toHaveLength(3);
    expect(channel.sent).toHaveLength(1);
    expect(meter.value('herald_channel_dead_letters_total', { ...labels, reason: 'unregistered' })).toBe(2);
    expect(meter.value('herald_channel_dead_letters_total', { ...labels, reason: 'bad_device_token' })).toBe(1);
    expect(meter.value('herald_channel_accepted_recipients_total', labels)).toBe(1);
  });

  it("makes a batch refused whole dead letters at once, and the task's later batches without a send", async () => {
    channel.next(refused());
    const first = await gateway.deliver(batch(1, 1, 2));
    const later = await gateway.deliver(batch(1, 3));
    await gateway.deliver(batch(2, 9));
    expect(first.rejected).toEqual([
      { uin: 1, reason: BATCH_REFUSED },
      { uin: 2, reason: BATCH_REFUSED },
    ]);
    expect(later.rejected).toEqual([{ uin: 3, reason: BATCH_REFUSED }]);
    expect([first.refused, later.refused]).toEqual([
      'refused, HTTP 400 payload too large',
      'refused, HTTP 400 payload too large',
    ]);
    expect(channel.sent.map((d) => [d.taskId, ...d.uins])).toEqual([
      [1, 1, 2],
      [2, 9],
    ]);
    expect(meter.value('herald_channel_refused_batches_total', labels)).toBe(1);
    expect(meter.value('herald_channel_dead_letters_total', { ...labels, reason: BATCH_REFUSED })).toBe(3);
  });

  it('passes on an error that is no outcome of the channel', async () => {
    channel.next(new HeraldError(ErrorCodes.INTERNAL, 'bug'));
    await rejectsWithCode(gateway.deliver(batch(1, 1)), 'INTERNAL');
  });

  it('rejects after close', async () => {
    await gateway.close();
    await rejectsWithCode(gateway.deliver(batch(1, 1)), 'UNAVAILABLE');
  });
});
