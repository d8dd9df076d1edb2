import {
  deliveryGatewayConformance,
  makeTempDir,
  rejectsWithCode,
  WebhookReceiver,
  type DownstreamAnswer,
  type ReceivedDelivery,
  type WebhookAnswer,
} from '@herald/testing';
import { readdir } from 'node:fs/promises';
import { noopLogger } from '@herald/core/ports';
import { FileDeliverySink, readDeliveryFile } from './file-sink';
import { WebhookDeliveryGateway, type WebhookBatch, type WebhookGatewayOptions } from './webhook-gateway';

const options = (url: string, extra: Partial<WebhookGatewayOptions> = {}): WebhookGatewayOptions => ({
  url,
  timeoutMs: 2000,
  headers: {},
  ...extra,
});

deliveryGatewayConformance(
  'WebhookDeliveryGateway',
  async () => {
    const receiver = await WebhookReceiver.start();
    return {
      gateway: new WebhookDeliveryGateway(options(receiver.url)),
      received: async () => receiver.accepted.map(({ body }) => body as WebhookBatch),
      answerNext: (answer) => receiver.answer(webhookAnswerOf(answer)),
      dispose: () => receiver.stop(),
    };
  },
  { outcomes: true },
);

/** How a webhook receiver says each outcome (docs/delivery.md, "Outcomes"). */
function webhookAnswerOf(answer: DownstreamAnswer): WebhookAnswer {
  switch (answer.kind) {
    case 'throttle':
      return { status: 429, headers: { 'retry-after': String(answer.retryAfterSeconds) } };
    case 'fail':
      return { status: 503 };
    case 'refuse':
      return { status: 400, body: answer.reason };
    case 'reject':
      return { status: 200, body: JSON.stringify({ rejected: answer.recipients }) };
  }
}

deliveryGatewayConformance('FileDeliverySink', async () => {
  const dir = await makeTempDir('herald-file-sink-conformance-');
  return {
    gateway: new FileDeliverySink(dir.path),
    // The file keeps recipients, not batch boundaries: one "batch" per record run of the same flag.
    received: async () => {
      const received: ReceivedDelivery[] = [];
      for (const name of await readdir(dir.path).catch(() => [])) {
        const match = /^task-(\d+)\.deliveries$/.exec(name);
        if (match === null) continue;
        const taskId = Number(match[1]);
        const records = await readDeliveryFile(dir.path, taskId);
        for (let i = 0; i < records.uins.length; i++) {
          const atLogin = records.atLogin[i] === 1;
          const last = received.at(-1);
          if (last !== undefined && last.taskId === taskId && last.atLogin === atLogin)
            last.uins.push(records.uins[i]!);
          else
            received.push({
              taskId,
              uins: [records.uins[i]!],
              atLogin,
              content: records.content!,
              displayAt: records.displayAt ?? null,
            });
        }
        // A personalised task's file keeps each recipient's content beside its record.
        if (records.contents !== undefined)
          for (const delivery of received.filter((d) => d.taskId === taskId))
            delivery.contents = delivery.uins.map((uin) => records.contents!.get(uin)!);
      }
      return received;
    },
    dispose: () => dir.remove(),
  };
});

describe('WebhookDeliveryGateway', () => {
  let receiver: WebhookReceiver;
  beforeEach(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterEach(async () => {
    await receiver.stop();
  });
  const batch = { taskId: 12, uins: Uint32Array.of(5, 9, 11), content: { body: 'hi' }, atLogin: false };

  it('POSTs JSON with an idempotency key naming the batch, and the configured headers', async () => {
    const gateway = new WebhookDeliveryGateway(options(receiver.url, { headers: { authorization: 'Bearer s3cret' } }));
    await gateway.deliver(batch);
    await gateway.deliver({ ...batch, atLogin: true, uins: Uint32Array.of(9) });
    await gateway.close();
    expect(receiver.requests.map((r) => r.headers['idempotency-key'])).toEqual(['12:P:5:11:3', '12:L:9:9:1']);
    expect(receiver.requests[0]!.headers['authorization']).toBe('Bearer s3cret');
    expect(receiver.requests[0]!.headers['content-type']).toBe('application/json');
    expect(receiver.requests[0]!.body).toEqual({
      taskId: 12,
      atLogin: false,
      displayAt: null,
      content: { body: 'hi' },
      uins: [5, 9, 11],
    });
  });

  it("sends each batch once, whatever the answer: trying again is the channel pacing's", async () => {
    receiver.answer({ status: 503 });
    const gateway = new WebhookDeliveryGateway(options(receiver.url));
    await rejectsWithCode(gateway.deliver(batch), 'UNAVAILABLE');
    await gateway.close();
    expect(receiver.requests).toHaveLength(1);
  });

  it.each([
    [{ status: 500 }, 'HTTP 500'],
    [{ status: 502, body: 'bad gateway' }, 'HTTP 502 bad gateway'],
    [{ status: 408 }, 'HTTP 408'],
  ])('reports %j as failed: UNAVAILABLE, retriable, saying %s', async (answer, said) => {
    receiver.answer(answer);
    const gateway = new WebhookDeliveryGateway(options(receiver.url));
    const error = await gateway.deliver(batch).catch((e: unknown) => e);
    await gateway.close();
    expect(error).toMatchObject({ code: 'UNAVAILABLE', retriable: true });
    expect((error as Error).message).toContain(said);
  });

  it('reports a 429 as throttled with Retry-After in seconds', async () => {
    receiver.answer({ status: 429, headers: { 'retry-after': '2' } });
    const gateway = new WebhookDeliveryGateway(options(receiver.url));
    const error = await gateway.deliver(batch).catch((e: unknown) => e);
    await gateway.close();
    expect(error).toMatchObject({ code: 'DELIVERY_THROTTLED', retriable: true, details: { retryAfterMs: 2000 } });
  });

  it('reads an HTTP-date Retry-After from the injected time', async () => {
    const now = Date.parse('2026-11-27T10:00:00Z');
    receiver.answer({ status: 429, headers: { 'retry-after': 'Fri, 27 Nov 2026 10:00:07 GMT' } });
    const gateway = new WebhookDeliveryGateway(options(receiver.url, { now: () => now }));
    const error = await gateway.deliver(batch).catch((e: unknown) => e);
    await gateway.close();
    expect(error).toMatchObject({ code: 'DELIVERY_THROTTLED', details: { retryAfterMs: 7000 } });
  });

  it('reports a 429 without a readable Retry-After as throttled, without a wait of its own', async () => {
    receiver.answer({ status: 429, headers: { 'retry-after': 'soon' } });
    const gateway = new WebhookDeliveryGateway(options(receiver.url));
    const error = await gateway.deliver(batch).catch((e: unknown) => e);
    await gateway.close();
    expect(error).toMatchObject({ code: 'DELIVERY_THROTTLED' });
    expect((error as { details: object }).details).not.toHaveProperty('retryAfterMs');
  });

  it('resolves with the recipients a 2xx answer rejects, by reason', async () => {
    receiver.answer({
      status: 200,
      body: JSON.stringify({
        rejected: [
          { uin: 9, reason: 'Unregistered' },
          { uin: 11, reason: 'bad_device_token' },
        ],
      }),
    });
    const gateway = new WebhookDeliveryGateway(options(receiver.url));
    const result = await gateway.deliver(batch);
    await gateway.close();
    expect(result).toEqual({
      rejected: [
        { uin: 9, reason: 'unregistered' },
        { uin: 11, reason: 'bad_device_token' },
      ],
    });
  });

  it.each([
    ['not JSON', 'ok'],
    ['a uin not in the batch', JSON.stringify({ rejected: [{ uin: 4, reason: 'unregistered' }] })],
    ['a reason that is not a token', JSON.stringify({ rejected: [{ uin: 5, reason: 'no such user!' }] })],
    ['rejected not an array', JSON.stringify({ rejected: { uin: 5 } })],
  ])('takes a 2xx with a malformed answer (%s) as accepted whole, and logs it', async (_, body) => {
    receiver.answer({ status: 200, body });
    const warnings: string[] = [];
    const logger = { ...noopLogger, warn: (message: string) => warnings.push(message) };
    const gateway = new WebhookDeliveryGateway(options(receiver.url, { logger }));
    expect(await gateway.deliver(batch)).toEqual({ rejected: [] });
    await gateway.close();
    expect(warnings).toHaveLength(1);
  });

  it('rejects DELIVERY_REJECTED when the receiver refuses the batch (4xx), with its answer', async () => {
    receiver.answer({ status: 400, body: 'unknown task' });
    const gateway = new WebhookDeliveryGateway(options(receiver.url));
    const error = await gateway.deliver(batch).catch((e: unknown) => e);
    await gateway.close();
    expect(error).toMatchObject({ code: 'DELIVERY_REJECTED', retriable: false });
    expect((error as Error).message).toContain('HTTP 400 unknown task');
    expect(receiver.requests).toHaveLength(1);
  });

  it('reports a request with no answer within timeoutMs as failed', async () => {
    receiver.answer('hang');
    const gateway = new WebhookDeliveryGateway(options(receiver.url, { timeoutMs: 200 }));
    const error = await gateway.deliver(batch).catch((e: unknown) => e);
    await gateway.close();
    expect(error).toMatchObject({ code: 'UNAVAILABLE', retriable: true });
    expect((error as Error).message).toContain('no answer within 200 ms');
  });

  it('rejects UNAVAILABLE when nothing listens', async () => {
    const url = receiver.url;
    await receiver.stop();
    const gateway = new WebhookDeliveryGateway(options(url));
    await rejectsWithCode(gateway.deliver(batch), 'UNAVAILABLE');
    await gateway.close();
    receiver = await WebhookReceiver.start(); // for afterEach
  });
});
