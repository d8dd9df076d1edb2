import { ErrorCodes } from '@herald/core';
import {
  deliveryGatewayConformance,
  fcmToken,
  FCM_ERRORS,
  freePort,
  Http2FcmServer,
  MemoryDeviceRegistry,
  rejectsWithCode,
  type DownstreamAnswer,
  type FcmAnswer,
} from '@herald/testing';
import { parseServiceAccount } from './fcm-credentials';
import { batchesOf } from './push-harness.test-util';
import { FcmDeliveryGateway, type FcmGatewayOptions } from './fcm-gateway';

const content = { body: 'Hello from Herald', title: 'Greeting' };

function gatewayOf(
  server: Http2FcmServer,
  registry: MemoryDeviceRegistry,
  extra: Partial<FcmGatewayOptions> = {},
): FcmDeliveryGateway {
  return new FcmDeliveryGateway({
    account: parseServiceAccount(server.serviceAccountJson, 'delivery.fcm.credentialsFile'),
    endpoint: server.endpoint,
    tokenUrl: server.tokenUrl,
    concurrency: 8,
    timeoutMs: 2000,
    ca: server.ca,
    registry,
    ...extra,
  });
}

/** Registers one FCM device per uin, token fcmToken(uin). */
async function registered(...uins: number[]): Promise<MemoryDeviceRegistry> {
  const registry = new MemoryDeviceRegistry();
  for (const uin of uins) await registry.register({ uin, platform: 'fcm', token: fcmToken(uin) });
  return registry;
}

/** How the local FCM answers each conformance outcome, for every message of the next batch. */
function fcmAnswerOf(answer: DownstreamAnswer, uin: number): FcmAnswer {
  switch (answer.kind) {
    case 'throttle':
      return FCM_ERRORS.quotaExceeded(answer.retryAfterSeconds);
    case 'fail':
      return FCM_ERRORS.internal();
    case 'refuse':
      return FCM_ERRORS.invalidArgument(answer.reason);
    case 'reject':
      return answer.recipients.some((r) => r.uin === uin) ? FCM_ERRORS.unregistered() : { kind: 'ok' };
  }
}

deliveryGatewayConformance(
  'FcmDeliveryGateway',
  async () => {
    const server = await Http2FcmServer.start();
    const registry = await registered(...Array.from({ length: 64 }, (_, uin) => uin), 0xffffffff);
    let next: DownstreamAnswer | undefined;
    let answering: { batch: string; answer: DownstreamAnswer } | undefined;
    server.answerBy((request) => {
      const batch = request.message.data!.batch!;
      if (next !== undefined && answering?.batch !== batch) [answering, next] = [{ batch, answer: next }, undefined];
      return answering?.batch === batch
        ? fcmAnswerOf(answering.answer, Number(request.message.data!.uin))
        : { kind: 'ok' };
    });
    return {
      gateway: gatewayOf(server, registry),
      answerNext: (answer) => (next = answer),
      received: async () =>
        batchesOf(
          server.accepted.map((r) => ({
            fields: r.message.data!,
            title: r.message.notification?.title,
            body: r.message.notification!.body!,
          })),
        ),
      dispose: () => server.stop(),
    };
  },
  { outcomes: true, renderedOnly: true },
);

describe('FcmDeliveryGateway', () => {
  let server: Http2FcmServer;
  let gateway: FcmDeliveryGateway | undefined;
  beforeEach(async () => {
    server = await Http2FcmServer.start();
  });
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
    await server.stop();
  });

  it('sends one message per device with a cached OAuth2 token, the task’s collapse key and its time to live', async () => {
    const registry = await registered(5, 9);
    await registry.register({ uin: 9, platform: 'fcm', token: fcmToken(900) });
    let now = 1_800_000_000_000;
    gateway = gatewayOf(server, registry, { now: () => now });
    const delivery = {
      taskId: 12,
      uins: Uint32Array.of(5, 9),
      content,
      atLogin: false,
      expiresAt: now + 3_600_000,
      collapseKey: 'flash-sale',
    };
    expect(await gateway.deliver(delivery)).toEqual({ rejected: [] });
    now += 60_000;
    await gateway.deliver({ ...delivery, uins: Uint32Array.of(5) });
    expect(server.exchanges).toBe(1);
    expect(server.requests.map((r) => r.token).sort()).toEqual([fcmToken(5), fcmToken(5), fcmToken(9), fcmToken(900)]);
    const first = server.requests.find((r) => r.token === fcmToken(900))!;
    expect(first.headers.authorization).toBe(`Bearer ${server.issued[0]}`);
    expect(first.message).toEqual({
      token: fcmToken(900),
      notification: { title: 'Greeting', body: 'Hello from Herald' },
      data: { taskId: '12', uin: '9', atLogin: 'false', batch: '12:P:5:9:2' },
      android: { collapse_key: 'flash-sale', ttl: '3600s' },
      apns: { headers: { 'apns-collapse-id': 'flash-sale', 'apns-expiration': String(1_800_003_600) } },
    });
  });

  it('exchanges a new token near expiry, and after FCM refuses the cached one', async () => {
    let now = Date.now();
    gateway = gatewayOf(server, await registered(1), { now: () => now });
    const batch = { taskId: 1, uins: Uint32Array.of(1), content, atLogin: false };
    await gateway.deliver(batch);
    now += 3_600_000 - 4 * 60_000; // within the refresh margin of the hour-long token
    await gateway.deliver(batch);
    expect(server.exchanges).toBe(2);
    server.revokeTokens();
    await rejectsWithCode(gateway.deliver(batch), ErrorCodes.UNAVAILABLE);
    await gateway.deliver(batch);
    expect(server.exchanges).toBe(3);
  });

  it('fails a batch UNAVAILABLE, naming the token endpoint, when it gives no token', async () => {
    gateway = gatewayOf(server, await registered(1));
    server.answerExchange({ status: 500, body: 'oops' }, { status: 200, body: 'not json' });
    const batch = { taskId: 1, uins: Uint32Array.of(1), content, atLogin: false };
    for (let i = 0; i < 2; i++) {
      const error = await rejectsWithCode(gateway.deliver(batch), ErrorCodes.UNAVAILABLE);
      expect(error.message).toContain(server.tokenUrl);
    }
    expect(server.requests).toHaveLength(0);
    await gateway.deliver(batch);
    expect(server.accepted).toHaveLength(1);
  });

  it('answers per device inside a batch: dead tokens leave the registry, a user with a live device is delivered', async () => {
    const registry = await registered(1, 2, 4, 6);
    await registry.register({ uin: 1, platform: 'fcm', token: fcmToken(100) });
    await registry.register({ uin: 6, platform: 'fcm', token: fcmToken(600) });
    await registry.register({ uin: 7, platform: 'apns', token: 'ab'.repeat(32) });
    server.answerToken(fcmToken(1), FCM_ERRORS.unregistered());
    server.answerToken(fcmToken(2), FCM_ERRORS.invalidToken());
    server.answerToken(fcmToken(6), FCM_ERRORS.unregistered());
    server.answerToken(fcmToken(600), { kind: 'error', status: 403, errorCode: 'SENDER_ID_MISMATCH' });
    gateway = gatewayOf(server, registry);
    const result = await gateway.deliver({
      taskId: 3,
      uins: Uint32Array.of(1, 2, 3, 4, 6, 7),
      content,
      atLogin: false,
    });
    expect(result.rejected).toEqual([
      { uin: 2, reason: 'invalid_token' },
      { uin: 3, reason: 'no_device' },
      { uin: 6, reason: 'sender_id_mismatch' }, // both its devices dead: the newest one's reason
      { uin: 7, reason: 'no_device' }, // an APNs device: not this channel's
    ]);
    expect(server.accepted.map((r) => r.token).sort()).toEqual([fcmToken(4), fcmToken(100)]);
    const left = await registry.devicesOf(Uint32Array.of(1, 2, 4, 6, 7));
    expect(left.map((devices) => devices.map((d) => d.token))).toEqual([
      [fcmToken(100)],
      [],
      [fcmToken(4)],
      [],
      ['ab'.repeat(32)],
    ]);
  });

  it('throttles a batch on 429 or a 503 with Retry-After, and stops sending the rest of it', async () => {
    const uins = Array.from({ length: 40 }, (_, i) => i + 1);
    gateway = gatewayOf(server, await registered(...uins), { concurrency: 2 });
    server.answer({ kind: 'ok' }, FCM_ERRORS.quotaExceeded(7));
    const batch = { taskId: 4, uins: Uint32Array.from(uins), content, atLogin: false };
    const error = await rejectsWithCode(gateway.deliver(batch), ErrorCodes.DELIVERY_THROTTLED);
    expect(error.details).toMatchObject({ retryAfterMs: 7000 });
    expect(server.requests.length).toBeLessThan(10);
    server.answer({ kind: 'error', status: 503, errorCode: 'UNAVAILABLE', retryAfter: '3' });
    expect((await rejectsWithCode(gateway.deliver(batch), ErrorCodes.DELIVERY_THROTTLED)).details).toMatchObject({
      retryAfterMs: 3000,
    });
  });

  it('fails a batch on 5xx, a malformed or oversized error, or no answer; refuses it whole on a bad payload', async () => {
    gateway = gatewayOf(server, await registered(1), { timeoutMs: 300 });
    const batch = { taskId: 5, uins: Uint32Array.of(1), content, atLogin: false };
    server.answer({ kind: 'error', status: 503 });
    await rejectsWithCode(gateway.deliver(batch), ErrorCodes.UNAVAILABLE);
    server.answer({ kind: 'raw', status: 502, body: '<html>bad gateway</html>' });
    await rejectsWithCode(gateway.deliver(batch), ErrorCodes.UNAVAILABLE);
    server.answer({ kind: 'raw', status: 500, body: 'x'.repeat(200_000) });
    await rejectsWithCode(gateway.deliver(batch), ErrorCodes.UNAVAILABLE);
    server.answer('hang');
    expect((await rejectsWithCode(gateway.deliver(batch), ErrorCodes.UNAVAILABLE)).message).toContain('no answer');
    server.answer({ kind: 'error', status: 404 }); // a wrong project: not a dead token
    await rejectsWithCode(gateway.deliver(batch), ErrorCodes.UNAVAILABLE);
    server.answer(FCM_ERRORS.invalidArgument('Message is too big'));
    const refused = await rejectsWithCode(gateway.deliver(batch), ErrorCodes.DELIVERY_REJECTED);
    expect(refused.retriable).toBe(false);
    expect(refused.message).toContain('Message is too big');
    expect(await (await registered()).devicesOf(Uint32Array.of(1))).toEqual([[]]);
  });
});

describe('FcmDeliveryGateway without a reachable FCM', () => {
  it('fails a batch UNAVAILABLE when nothing listens, or the certificate is not trusted', async () => {
    const server = await Http2FcmServer.start();
    const registry = await registered(1);
    const batch = { taskId: 1, uins: Uint32Array.of(1), content, atLogin: false };
    try {
      const closedPort = `https://127.0.0.1:${await freePort()}`;
      const nowhere = gatewayOf(server, registry, { endpoint: closedPort, tokenUrl: `${closedPort}/token` });
      await rejectsWithCode(nowhere.deliver(batch), ErrorCodes.UNAVAILABLE);
      await nowhere.close();
      // No ca: the system's CAs, which do not include the test's self-signed certificate.
      const strict = new FcmDeliveryGateway({
        account: parseServiceAccount(server.serviceAccountJson, 'delivery.fcm.credentialsFile'),
        endpoint: server.endpoint,
        tokenUrl: server.tokenUrl,
        concurrency: 1,
        timeoutMs: 2000,
        registry,
      });
      await rejectsWithCode(strict.deliver(batch), ErrorCodes.UNAVAILABLE);
      await strict.close();
      expect(server.exchanges).toBe(0);
    } finally {
      await server.stop();
    }
  });
});

describe('parseServiceAccount', () => {
  const setting = 'delivery.fcm.credentialsFile';
  it('names the setting and what is wrong, never the key', () => {
    const good = JSON.parse(
      JSON.stringify({ type: 'service_account', client_email: 'a@b', project_id: 'p', private_key: 'nope' }),
    ) as Record<string, string>;
    const problem = (text: string) => {
      try {
        parseServiceAccount(text, setting);
      } catch (error) {
        expect(error).toMatchObject({ code: ErrorCodes.CONFIG_INVALID, setting });
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(problem('{')).toContain('not JSON');
    expect(problem(JSON.stringify({ ...good, type: 'authorized_user' }))).toContain('"type"');
    expect(problem(JSON.stringify({ ...good, client_email: undefined }))).toContain('client_email');
    expect(problem(JSON.stringify(good))).toContain('private_key');
  });
});
