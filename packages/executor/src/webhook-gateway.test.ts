import {
  deliveryGatewayConformance,
  makeTempDir,
  rejectsWithCode,
  WebhookReceiver,
  type ReceivedDelivery,
} from '@herald/testing';
import { readdir } from 'node:fs/promises';
import { FileDeliverySink, readDeliveryFile } from './file-sink';
import { WebhookDeliveryGateway, type WebhookBatch, type WebhookGatewayOptions } from './webhook-gateway';

const options = (url: string, extra: Partial<WebhookGatewayOptions> = {}): WebhookGatewayOptions => ({
  url,
  timeoutMs: 2000,
  maxAttempts: 3,
  retryDelayMs: 1,
  headers: {},
  ...extra,
});

deliveryGatewayConformance('WebhookDeliveryGateway', async () => {
  const receiver = await WebhookReceiver.start();
  return {
    gateway: new WebhookDeliveryGateway(options(receiver.url)),
    received: async () => receiver.accepted.map(({ body }) => body as WebhookBatch),
    dispose: () => receiver.stop(),
  };
});

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

  it('tries again after 5xx, 429 and 408, with the same key, and resolves once accepted', async () => {
    receiver.answer({ status: 503 }, { status: 429 });
    const gateway = new WebhookDeliveryGateway(options(receiver.url, { maxAttempts: 3 }));
    await gateway.deliver(batch);
    await gateway.close();
    expect(receiver.requests).toHaveLength(3);
    expect(new Set(receiver.requests.map((r) => r.headers['idempotency-key']))).toEqual(new Set(['12:P:5:11:3']));
    expect(receiver.accepted).toHaveLength(1);
  });

  it('rejects UNAVAILABLE (retriable) when every attempt fails', async () => {
    receiver.answer({ status: 500 }, { status: 502 }, { status: 408 });
    const gateway = new WebhookDeliveryGateway(options(receiver.url, { maxAttempts: 3 }));
    const error = await gateway.deliver(batch).catch((e: unknown) => e);
    await gateway.close();
    expect(error).toMatchObject({ code: 'UNAVAILABLE', retriable: true });
    expect((error as Error).message).toContain('HTTP 408');
    expect(receiver.requests).toHaveLength(3);
  });

  it('rejects DELIVERY_REJECTED at once when the receiver refuses the batch (4xx), without trying again', async () => {
    receiver.answer({ status: 400, body: 'unknown task' });
    const gateway = new WebhookDeliveryGateway(options(receiver.url, { maxAttempts: 5 }));
    const error = await gateway.deliver(batch).catch((e: unknown) => e);
    await gateway.close();
    expect(error).toMatchObject({ code: 'DELIVERY_REJECTED', retriable: false });
    expect((error as Error).message).toContain('HTTP 400 unknown task');
    expect(receiver.requests).toHaveLength(1);
  });

  it('abandons an attempt that gets no answer within timeoutMs and tries again', async () => {
    receiver.answer('hang');
    const gateway = new WebhookDeliveryGateway(options(receiver.url, { timeoutMs: 200, maxAttempts: 2 }));
    await gateway.deliver(batch);
    await gateway.close();
    expect(receiver.requests).toHaveLength(2);
    expect(receiver.accepted).toHaveLength(1);
  });

  it('rejects UNAVAILABLE when nothing listens', async () => {
    const url = receiver.url;
    await receiver.stop();
    const gateway = new WebhookDeliveryGateway(options(url, { maxAttempts: 2 }));
    await rejectsWithCode(gateway.deliver(batch), 'UNAVAILABLE');
    await gateway.close();
    receiver = await WebhookReceiver.start(); // for afterEach
  });
});
