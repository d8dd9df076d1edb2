import {
  deliveryGatewayConformance,
  waitFor,
  ZmqPushReceiver,
  type DownstreamAnswer,
  type ZmqPushAnswer,
} from '@herald/testing';
import { DEFAULTS } from '@herald/core/config';
import type { DeliveryGateway, Logger } from '@herald/core/ports';
import * as zmq from 'zeromq';
import { pacedChannel } from './delivery-gateway';
import type { PacedDeliveryGateway } from './paced-gateway';
import { ZmqDeliveryGateway, type ZmqGatewayOptions } from './zmq-gateway';

const content = { body: 'Hello from Herald' };

/** A CURVE server key pair for the receiver and a client pair for the gateway. */
function curveKeys() {
  const server = zmq.curveKeyPair();
  const client = zmq.curveKeyPair();
  return {
    server,
    gatewayCurve: { serverPublicKey: server.publicKey, publicKey: client.publicKey, secretKey: client.secretKey },
  };
}

function gatewayTo(receiver: ZmqPushReceiver, extra: Partial<ZmqGatewayOptions> = {}): ZmqDeliveryGateway {
  return new ZmqDeliveryGateway({
    endpoint: receiver.endpoint,
    curve: false,
    timeoutMs: 2000,
    maxInFlight: 8,
    ...extra,
  });
}

deliveryGatewayConformance(
  'ZmqDeliveryGateway (CURVE)',
  async () => {
    const { server, gatewayCurve } = curveKeys();
    const receiver = await ZmqPushReceiver.start({ curve: server });
    return {
      gateway: gatewayTo(receiver, { curve: gatewayCurve }),
      received: async () =>
        receiver.accepted.map(({ taskId, uins, atLogin, content, contents, displayAt }) => ({
          taskId,
          uins,
          atLogin,
          content: content as { body: string },
          displayAt,
          ...(contents === undefined ? {} : { contents: contents as Array<{ body: string }> }),
        })),
      answerNext: (answer) => receiver.answer(zmqAnswerOf(answer)),
      dispose: () => receiver.stop(),
    };
  },
  { outcomes: true },
);

/** How the reference receiver says each outcome (docs/delivery.md, "The ZeroMQ push gateway"). */
function zmqAnswerOf(answer: DownstreamAnswer): ZmqPushAnswer {
  switch (answer.kind) {
    case 'throttle':
      return { kind: 'throttle', retryAfterMs: answer.retryAfterSeconds * 1000 };
    case 'fail':
      return { kind: 'fail', reason: 'service unavailable' };
    case 'refuse':
      return { kind: 'refuse', reason: answer.reason };
    case 'reject':
      return { kind: 'accept', rejected: answer.recipients };
  }
}

describe('ZmqDeliveryGateway', () => {
  let receiver: ZmqPushReceiver;
  let gateway: ZmqDeliveryGateway;
  afterEach(async () => {
    await gateway?.close();
    await receiver?.stop();
  });

  it('never delivers to a service whose CURVE key is not the one configured, and reports a failure', async () => {
    const { server, gatewayCurve } = curveKeys();
    receiver = await ZmqPushReceiver.start({ curve: server });
    const impostor = zmq.curveKeyPair().publicKey;
    gateway = gatewayTo(receiver, { curve: { ...gatewayCurve, serverPublicKey: impostor }, timeoutMs: 300 });
    const error = await gateway
      .deliver({ taskId: 1, uins: Uint32Array.of(1, 2), content, atLogin: false })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'UNAVAILABLE', retriable: true });
    expect((error as Error).message).toContain('no answer within 300 ms');
    expect(receiver.requests).toEqual([]);
  });

  it('fails a request a hung receiver never answers, at its timeout, and frees its slot', async () => {
    receiver = await ZmqPushReceiver.start();
    gateway = gatewayTo(receiver, { timeoutMs: 300, maxInFlight: 1 });
    receiver.answer({ kind: 'hang' });
    const error = await gateway
      .deliver({ taskId: 2, uins: Uint32Array.of(5), content, atLogin: false })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'UNAVAILABLE', retriable: true });
    // The one slot is free again: the next batch goes through.
    await gateway.deliver({ taskId: 2, uins: Uint32Array.of(6), content, atLogin: false });
    expect(receiver.uinsOf(2)).toEqual([6]);
  });

  it('takes a malformed answer as a failure, counted and logged with the reason', async () => {
    receiver = await ZmqPushReceiver.start();
    const warnings: Array<Record<string, unknown>> = [];
    const logger: Logger = { debug() {}, info() {}, error() {}, warn: (_m, fields) => warnings.push(fields ?? {}) };
    gateway = gatewayTo(receiver, { logger });
    const requestId = Buffer.alloc(4);
    requestId.writeUInt32LE(1);
    receiver.answer({ kind: 'garbage', frames: [Buffer.from('1'), requestId, Buffer.from('maybe'), Buffer.alloc(0)] });
    const error = await gateway
      .deliver({ taskId: 3, uins: Uint32Array.of(7), content, atLogin: false })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'UNAVAILABLE', retriable: true });
    expect((error as Error).message).toContain('malformed answer, status "maybe"');
    expect(warnings).toEqual([
      expect.objectContaining({ problem: expect.stringContaining('status "maybe"'), requestId: 1 }),
    ]);
  });

  it('takes rejections naming a uin outside the batch as malformed', async () => {
    receiver = await ZmqPushReceiver.start();
    gateway = gatewayTo(receiver);
    receiver.answer({ kind: 'accept', rejected: [{ uin: 99, reason: 'unregistered' }] });
    const error = await gateway
      .deliver({ taskId: 4, uins: Uint32Array.of(1, 2), content, atLogin: false })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'UNAVAILABLE' });
    expect((error as Error).message).toContain('rejected[0].uin is not a uin of the batch');
  });

  it('reconnects by itself to a service that restarts on the same endpoint', async () => {
    receiver = await ZmqPushReceiver.start();
    const { endpoint } = receiver;
    gateway = gatewayTo(receiver, { timeoutMs: 300 });
    await gateway.deliver({ taskId: 7, uins: Uint32Array.of(1), content, atLogin: false });
    await receiver.stop();
    // The port is free again once libzmq's reaper has closed the old socket.
    let restarted: ZmqPushReceiver | undefined;
    await waitFor(
      async () => {
        restarted = await ZmqPushReceiver.start({ endpoint }).catch(() => undefined);
        return restarted !== undefined;
      },
      { timeoutMs: 10_000, message: 'the receiver bound again' },
    );
    receiver = restarted!;
    const again = { taskId: 7, uins: Uint32Array.of(2), content, atLogin: false };
    await waitFor(
      () =>
        gateway.deliver(again).then(
          () => true,
          () => false,
        ),
      {
        timeoutMs: 15_000,
        message: 'a batch delivered after the reconnection',
      },
    );
    expect(receiver.uinsOf(7)).toEqual([2]);
  });

  it('sends the documented frames: version, request id, idempotency key, header, uint32 LE uins', async () => {
    receiver = await ZmqPushReceiver.start();
    gateway = gatewayTo(receiver);
    await gateway.deliver({ taskId: 12, uins: Uint32Array.of(3, 0xfffffffe), content, atLogin: true, displayAt: 5 });
    expect(receiver.requests).toEqual([
      expect.objectContaining({ idempotencyKey: '12:L:3:4294967294:2', uins: [3, 0xfffffffe], displayAt: 5 }),
    ]);
  });
});

describe('ZmqDeliveryGateway paced by its outcomes', () => {
  let receiver: ZmqPushReceiver;
  let paced: DeliveryGateway;
  afterEach(async () => {
    await paced?.close();
    await receiver?.stop();
  });

  function pacedGateway(): DeliveryGateway {
    return pacedChannel('zmq', gatewayTo(receiver), {
      maxAttempts: 5,
      retryDelayMs: 10,
      pacing: DEFAULTS.delivery.webhook.pacing,
    });
  }

  it('makes the recipients the service rejects for good dead letters with its reason, and delivers the rest', async () => {
    receiver = await ZmqPushReceiver.start();
    paced = pacedGateway();
    receiver.answer({ kind: 'accept', rejected: [{ uin: 2, reason: 'bad_device_token' }] });
    const result = await paced.deliver({ taskId: 5, uins: Uint32Array.of(1, 2, 3), content, atLogin: false });
    expect(result?.rejected).toEqual([{ uin: 2, reason: 'bad_device_token' }]);
    expect(receiver.uinsOf(5)).toEqual([1, 3]);
  });

  it('opens the breaker on a hung service, then resumes by itself once it answers', async () => {
    receiver = await ZmqPushReceiver.start();
    const hung = { kind: 'hang' } as const;
    receiver.answer(hung, hung, hung);
    const pacing = { ...DEFAULTS.delivery.webhook.pacing, breakerOpenMs: 200 };
    const channel = pacedChannel('zmq', gatewayTo(receiver, { timeoutMs: 200 }), {
      maxAttempts: 2,
      retryDelayMs: 10,
      pacing,
    }) as PacedDeliveryGateway;
    paced = channel;
    const breakerStates = new Set<string>();
    const watching = setInterval(() => breakerStates.add(channel.status().breaker), 5);
    try {
      await channel.deliver({ taskId: 8, uins: Uint32Array.of(1, 2), content, atLogin: false });
    } finally {
      clearInterval(watching);
    }
    expect(breakerStates).toContain('open');
    expect(channel.status().breaker).toBe('closed');
    expect(receiver.requests).toHaveLength(4);
    expect(receiver.uinsOf(8)).toEqual([1, 2]);
  });

  it('waits the retry-after a throttling service names before sending the batch again', async () => {
    receiver = await ZmqPushReceiver.start();
    paced = pacedGateway();
    const arrivals: number[] = [];
    receiver.answerBy(() => {
      arrivals.push(Date.now());
      return arrivals.length === 1 ? { kind: 'throttle', retryAfterMs: 400 } : { kind: 'accept' };
    });
    await paced.deliver({ taskId: 6, uins: Uint32Array.of(1), content, atLogin: false });
    expect(receiver.uinsOf(6)).toEqual([1]);
    expect(arrivals).toHaveLength(2);
    expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(400);
  });
});
