import { ErrorCodes } from '@herald/core';
import {
  apnsToken,
  APNS_ERRORS,
  deliveryGatewayConformance,
  Http2ApnsServer,
  MemoryDeviceRegistry,
  rejectsWithCode,
  type ApnsAnswer,
  type DownstreamAnswer,
} from '@herald/testing';
import { ApnsDeliveryGateway, PROVIDER_TOKEN_REFRESH_MS, type ApnsGatewayOptions } from './apns-gateway';
import { batchesOf } from './push-harness.test-util';

const content = { body: 'Hello from Herald', title: 'Greeting' };

function gatewayOf(
  server: Http2ApnsServer,
  registry: MemoryDeviceRegistry,
  extra: Partial<ApnsGatewayOptions> = {},
): ApnsDeliveryGateway {
  return new ApnsDeliveryGateway({
    key: server.keyPem,
    keyId: server.keyId,
    teamId: server.teamId,
    topic: server.topic,
    pushType: 'alert',
    endpoint: server.endpoint,
    concurrency: 8,
    timeoutMs: 2000,
    ca: server.ca,
    registry,
    ...extra,
  });
}

/** Registers one APNs device per uin, token apnsToken(uin). */
async function registered(...uins: number[]): Promise<MemoryDeviceRegistry> {
  const registry = new MemoryDeviceRegistry();
  for (const uin of uins) await registry.register({ uin, platform: 'apns', token: apnsToken(uin) });
  return registry;
}

function apnsAnswerOf(answer: DownstreamAnswer, uin: number): ApnsAnswer {
  switch (answer.kind) {
    case 'throttle':
      return APNS_ERRORS.tooManyRequests(answer.retryAfterSeconds);
    case 'fail':
      return APNS_ERRORS.internal();
    case 'refuse':
      return { kind: 'error', status: 400, reason: answer.reason };
    case 'reject':
      return answer.recipients.some((r) => r.uin === uin) ? APNS_ERRORS.unregistered() : { kind: 'ok' };
  }
}

deliveryGatewayConformance(
  'ApnsDeliveryGateway',
  async () => {
    const server = await Http2ApnsServer.start();
    const registry = await registered(...Array.from({ length: 64 }, (_, uin) => uin), 0xffffffff);
    let next: DownstreamAnswer | undefined;
    let answering: { batch: string; answer: DownstreamAnswer } | undefined;
    server.answerBy((request) => {
      const batch = request.payload.herald!.batch!;
      if (next !== undefined && answering?.batch !== batch) [answering, next] = [{ batch, answer: next }, undefined];
      return answering?.batch === batch
        ? apnsAnswerOf(answering.answer, Number(request.payload.herald!.uin))
        : { kind: 'ok' };
    });
    return {
      gateway: gatewayOf(server, registry),
      answerNext: (answer) => (next = answer),
      received: async () =>
        batchesOf(
          server.accepted.map((r) => ({
            fields: r.payload.herald!,
            title: r.payload.aps?.alert?.title,
            body: r.payload.aps!.alert!.body!,
          })),
        ),
      dispose: () => server.stop(),
    };
  },
  { outcomes: true, renderedOnly: true },
);

describe('ApnsDeliveryGateway', () => {
  let server: Http2ApnsServer;
  let gateway: ApnsDeliveryGateway | undefined;
  beforeEach(async () => {
    server = await Http2ApnsServer.start();
  });
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
    await server.stop();
  });

  it('posts each device its notification with the topic, push type, expiry and collapse id of the task', async () => {
    const registry = await registered(5);
    gateway = gatewayOf(server, registry);
    const expiresAt = Date.now() + 3_600_000;
    await gateway.deliver({
      taskId: 12,
      uins: Uint32Array.of(5),
      content,
      atLogin: false,
      expiresAt,
      collapseKey: 'sale',
    });
    await gateway.deliver({ taskId: 13, uins: Uint32Array.of(5), content: { body: 'no title' }, atLogin: true });
    const [first, second] = server.accepted;
    expect(first!.token).toBe(apnsToken(5));
    expect(first!.headers).toMatchObject({
      'apns-topic': server.topic,
      'apns-push-type': 'alert',
      'apns-priority': '10',
      'apns-expiration': String(Math.floor(expiresAt / 1000)),
      'apns-collapse-id': 'sale',
    });
    expect(first!.payload).toEqual({
      aps: { alert: { title: 'Greeting', body: 'Hello from Herald' } },
      herald: { taskId: '12', uin: '5', atLogin: 'false', batch: '12:P:5:5:1' },
    });
    expect(second!.headers).toMatchObject({ 'apns-expiration': '0', 'apns-collapse-id': 'herald-task-13' });
    expect(second!.payload.aps).toEqual({ alert: { body: 'no title' } });
    expect(server.providerTokens).toHaveLength(1);
  });

  it('sends background pushes at priority 5 with content-available', async () => {
    gateway = gatewayOf(server, await registered(1), { pushType: 'background' });
    await gateway.deliver({ taskId: 1, uins: Uint32Array.of(1), content, atLogin: false });
    expect(server.accepted[0]!.headers).toMatchObject({ 'apns-push-type': 'background', 'apns-priority': '5' });
    expect(server.accepted[0]!.payload.aps).toEqual({ 'content-available': 1 });
  });

  it('signs a new provider token every 50 minutes, and at once when APNs refuses the one it has', async () => {
    let now = Date.now();
    gateway = gatewayOf(server, await registered(1), { now: () => now });
    const batch = { taskId: 1, uins: Uint32Array.of(1), content, atLogin: false };
    await gateway.deliver(batch);
    now += PROVIDER_TOKEN_REFRESH_MS - 1000;
    await gateway.deliver(batch);
    expect(server.providerTokens).toHaveLength(1);
    now += 1000;
    await gateway.deliver(batch);
    expect(server.providerTokens).toHaveLength(2);
    server.expireProviderTokens();
    now += 1000; // a new token must differ from the refused one: a second later
    await rejectsWithCode(gateway.deliver(batch), ErrorCodes.UNAVAILABLE);
    await gateway.deliver(batch);
    expect(server.providerTokens).toHaveLength(3);
    expect(server.accepted).toHaveLength(4);
  });

  it('answers per device inside a batch: 410 and BadDeviceToken remove the token, a user with a live device is delivered', async () => {
    const registry = await registered(1, 2, 3, 5);
    await registry.register({ uin: 1, platform: 'apns', token: apnsToken(100) });
    await registry.register({ uin: 6, platform: 'fcm', token: `fcm-${'y'.repeat(40)}` });
    server.answerToken(apnsToken(1), APNS_ERRORS.unregistered());
    server.answerToken(apnsToken(2), APNS_ERRORS.badDeviceToken());
    server.answerToken(apnsToken(3), { kind: 'error', status: 400, reason: 'DeviceTokenNotForTopic' });
    gateway = gatewayOf(server, registry);
    const result = await gateway.deliver({
      taskId: 3,
      uins: Uint32Array.of(1, 2, 3, 4, 5, 6),
      content,
      atLogin: false,
    });
    expect(result.rejected).toEqual([
      { uin: 2, reason: 'bad_device_token' },
      { uin: 3, reason: 'device_token_not_for_topic' },
      { uin: 4, reason: 'no_device' },
      { uin: 6, reason: 'no_device' },
    ]);
    expect(server.accepted.map((r) => r.token).sort()).toEqual([apnsToken(5), apnsToken(100)].sort());
    const left = await registry.devicesOf(Uint32Array.of(1, 2, 3, 5));
    expect(left.map((devices) => devices.map((d) => d.token))).toEqual([[apnsToken(100)], [], [], [apnsToken(5)]]);
  });

  it('throttles on 429, fails on 5xx or no answer, refuses a payload APNs will not take', async () => {
    gateway = gatewayOf(server, await registered(1), { timeoutMs: 300 });
    const batch = { taskId: 5, uins: Uint32Array.of(1), content, atLogin: false };
    server.answer(APNS_ERRORS.tooManyRequests());
    const throttled = await rejectsWithCode(gateway.deliver(batch), ErrorCodes.DELIVERY_THROTTLED);
    expect(throttled.details).toEqual({});
    server.answer(APNS_ERRORS.tooManyRequests(4));
    expect((await rejectsWithCode(gateway.deliver(batch), ErrorCodes.DELIVERY_THROTTLED)).details).toEqual({
      retryAfterMs: 4000,
    });
    server.answer({ kind: 'error', status: 503, reason: 'ServiceUnavailable' });
    await rejectsWithCode(gateway.deliver(batch), ErrorCodes.UNAVAILABLE);
    server.answer({ kind: 'raw', status: 500, body: 'not json' });
    await rejectsWithCode(gateway.deliver(batch), ErrorCodes.UNAVAILABLE);
    server.answer('hang');
    await rejectsWithCode(gateway.deliver(batch), ErrorCodes.UNAVAILABLE);
    const big = { ...batch, content: { body: 'x'.repeat(5000) } };
    const refused = await rejectsWithCode(gateway.deliver(big), ErrorCodes.DELIVERY_REJECTED);
    expect(refused.message).toContain('PayloadTooLarge');
  });

  it('refuses a key that is not an EC P-256 key, naming the setting', async () => {
    const registry = await registered();
    expect(() => gatewayOf(server, registry, { key: 'not a key' })).toThrow(
      expect.objectContaining({ code: ErrorCodes.CONFIG_INVALID, setting: 'delivery.apns.keyFile' }),
    );
  });
});
