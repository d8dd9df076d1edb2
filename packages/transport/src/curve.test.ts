import { ConfigError, HeraldError } from '@herald/core';
import type { Logger, Meter } from '@herald/core/ports';
import * as zmq from 'zeromq';
import { createPull, createPush } from './channels';
import type { PullChannel, PushChannel } from './channels';
import { checkCurveKey, checkCurveKeyPair, generateKeyPair, publicKeyOf, z85Decode, z85Encode } from './curve';
import type { CurveKeyPair } from './curve';
import type { Message, TaskHalt } from './messages/types';
import { answerZapRequest, registerZapDomain, ZAP_ENDPOINT, zapDomainCount } from './zap';

/** Polls `condition` until it holds; fails with `what` once the deadline passes. */
async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

const halt = (taskId: number): TaskHalt => ({ kind: 'task.halt', taskId, epoch: 1 });

let toClose: { close(): void }[] = [];
const track = <T extends { close(): void }>(closable: T): T => {
  toClose.push(closable);
  return closable;
};
afterEach(() => {
  for (const closable of toClose) closable.close();
  toClose = [];
});

/** A CURVE PULL server on a wildcard tcp port, reading in the background, with its refusals recorded. */
async function curveServer(name: string, allowed: CurveKeyPair[]) {
  const keys = generateKeyPair();
  const refusals: Record<string, string>[] = [];
  const warnings: Record<string, unknown>[] = [];
  const meter: Meter = {
    counter: (metric) => ({
      inc: (labels) => (metric === 'herald_transport_refused_peers_total' ? refusals.push(labels ?? {}) : undefined),
    }),
    gauge: () => ({ set() {} }),
    histogram: () => ({ observe() {} }),
  };
  const logger: Logger = { debug() {}, info() {}, error() {}, warn: (_message, fields) => warnings.push(fields ?? {}) };
  const pull = track(
    await createPull({
      name,
      endpoint: 'tcp://127.0.0.1:*',
      highWaterMark: 100,
      meter,
      logger,
      curve: {
        serverSecretKey: keys.secretKey,
        serverPublicKey: keys.publicKey,
        allowedClientKeys: allowed.map((k) => k.publicKey),
      },
    }),
  );
  const received: Message[] = [];
  void (async () => {
    for await (const msg of pull.messages()) received.push(msg);
  })();
  return { pull, keys, refusals, warnings, received };
}

async function curveClient(
  server: { pull: PullChannel; keys: CurveKeyPair },
  pair: CurveKeyPair,
  serverPublicKey = server.keys.publicKey,
): Promise<PushChannel> {
  return track(
    await createPush({
      name: 'client',
      endpoints: [server.pull.endpoint],
      highWaterMark: 100,
      curve: { serverPublicKey, publicKey: pair.publicKey, secretKey: pair.secretKey },
    }),
  );
}

describe('Z85 and CURVE keys', () => {
  it('encodes and decodes the RFC 32 test vector, and rejects what is not Z85', () => {
    const bytes = Buffer.from([0x86, 0x4f, 0xd2, 0x6f, 0xb5, 0x59, 0xf7, 0x5b]);
    expect(z85Encode(bytes)).toBe('HelloWorld');
    expect(z85Decode('HelloWorld')).toEqual(bytes);
    expect(z85Decode('HelloWorl')).toBeUndefined(); // not a multiple of 5
    expect(z85Decode('Hello~orld')).toBeUndefined(); // '~' is not in the alphabet
    expect(z85Decode('#####')).toBeUndefined(); // 85^5 - 1 > 2^32 - 1
    expect(z85Decode('%nSc0')).toEqual(Buffer.from([0xff, 0xff, 0xff, 0xff]));
  });

  it('generateKeyPair makes distinct Z85 pairs whose public key belongs to the secret one', () => {
    const a = generateKeyPair();
    const b = generateKeyPair();
    for (const key of [a.publicKey, a.secretKey, b.publicKey, b.secretKey]) {
      expect(key).toHaveLength(40);
      expect(checkCurveKey('k', key)).toBe(key);
      expect(z85Decode(key)).toHaveLength(32);
    }
    expect(new Set([a.publicKey, a.secretKey, b.publicKey, b.secretKey]).size).toBe(4);
    expect(publicKeyOf(a.secretKey)).toBe(a.publicKey);
    expect(publicKeyOf(b.secretKey)).toBe(b.publicKey);
    expect(checkCurveKeyPair('pub', a.publicKey, 'sec', a.secretKey)).toEqual(a);
  });

  const good = generateKeyPair().secretKey;
  it.each<[string, unknown]>([
    ['39 characters', good.slice(1)],
    ['41 characters', `${good}0`],
    ['empty', ''],
    ['a character outside Z85', `${good.slice(0, 39)}~`],
    ['a group above 2^32 - 1', `#####${good.slice(5)}`],
    ['a number', 42],
    ['undefined', undefined],
  ])('checkCurveKey rejects %s with a ConfigError naming the setting, not the key', (_what, value) => {
    const error = configError(() => checkCurveKey('curve.secretKey', value));
    expect(error.setting).toBe('curve.secretKey');
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain('curve.secretKey');
    if (typeof value === 'string' && value.length > 0) expect(error.message).not.toContain(value);
  });

  it('rejects a public key that does not belong to the secret key, naming the public one', () => {
    const a = generateKeyPair();
    const b = generateKeyPair();
    expect(configError(() => checkCurveKeyPair('x.publicKey', b.publicKey, 'x.secretKey', a.secretKey)).setting).toBe(
      'x.publicKey',
    );
  });

  it('rejects bad CURVE channel options with a ConfigError naming the setting', async () => {
    const server = generateKeyPair();
    const client = generateKeyPair();
    const serverCurve = {
      serverSecretKey: server.secretKey,
      serverPublicKey: server.publicKey,
      allowedClientKeys: [client.publicKey],
    };
    const clientCurve = { serverPublicKey: server.publicKey, publicKey: client.publicKey, secretKey: client.secretKey };
    const pull = (endpoint: string, curve: Partial<typeof serverCurve>) =>
      createPull({ name: 'exec-1', endpoint, highWaterMark: 10, curve: { ...serverCurve, ...curve } });
    const push = (endpoint: string, curve: Partial<typeof clientCurve>) =>
      createPush({ name: 'disp', endpoints: [endpoint], highWaterMark: 10, curve: { ...clientCurve, ...curve } });
    const tcp = 'tcp://127.0.0.1:*';
    const cases: [Promise<unknown>, string][] = [
      [pull(tcp, { serverSecretKey: 'short' }), 'transport.exec-1.curve.serverSecretKey'],
      [pull(tcp, { serverPublicKey: client.publicKey }), 'transport.exec-1.curve.serverPublicKey'],
      [
        pull(tcp, { allowedClientKeys: [client.publicKey, 'not a key'] }),
        'transport.exec-1.curve.allowedClientKeys[1]',
      ],
      [pull(tcp, { allowedClientKeys: [] }), 'transport.exec-1.curve.allowedClientKeys'],
      [pull('inproc://curve-exec-1', {}), 'transport.exec-1.endpoint'],
      [push('tcp://127.0.0.1:1', { secretKey: `${client.secretKey.slice(0, 39)}"` }), 'transport.disp.curve.secretKey'],
      [push('tcp://127.0.0.1:1', { serverPublicKey: '' }), 'transport.disp.curve.serverPublicKey'],
      [push('tcp://127.0.0.1:1', { publicKey: server.publicKey }), 'transport.disp.curve.publicKey'],
      [push('inproc://curve-exec-1', {}), 'transport.disp.endpoints'],
    ];
    for (const [attempt, setting] of cases) {
      const error: unknown = await attempt.then(
        (channel) => {
          (channel as { close(): void }).close();
          return new Error(`accepted; expected a ConfigError naming ${setting}`);
        },
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).setting).toBe(setting);
    }
    expect(zapDomainCount()).toBe(0);
  });
});

describe('the ZAP handler', () => {
  it('answers RFC 27 requests by domain: 200 for an allowed key, 400 otherwise, 500 for a malformed request', async () => {
    const allowed = generateKeyPair();
    const stranger = generateKeyPair();
    const refused: [string, string][] = [];
    const registration = await registerZapDomain({
      channel: 'zap-unit',
      allowedClientKeys: [allowed.publicKey],
      onRefused: (key, address) => refused.push([key, address]),
    });
    track({ close: registration.release });
    const request = (domain: string, mechanism: string, ...credentials: Buffer[]) => [
      Buffer.from('1.0'),
      Buffer.from('7'),
      Buffer.from(domain),
      Buffer.from('10.0.0.9'),
      Buffer.alloc(0),
      Buffer.from(mechanism),
      ...credentials,
    ];
    const text = (frames: Buffer[]) => frames.map((f) => f.toString());
    const { domain } = registration;

    expect(text(answerZapRequest(request(domain, 'CURVE', z85Decode(allowed.publicKey)!)))).toEqual([
      '1.0',
      '7',
      '200',
      'OK',
      allowed.publicKey,
      '',
    ]);
    expect(refused).toEqual([]);
    expect(text(answerZapRequest(request(domain, 'CURVE', z85Decode(stranger.publicKey)!)))).toEqual([
      '1.0',
      '7',
      '400',
      'client key not allowed',
      '',
      '',
    ]);
    expect(refused).toEqual([[stranger.publicKey, '10.0.0.9']]);
    expect(answerZapRequest(request('herald/elsewhere/1', 'CURVE', z85Decode(allowed.publicKey)!))[2]!.toString()).toBe(
      '400',
    );
    expect(answerZapRequest(request(domain, 'NULL'))[2]!.toString()).toBe('400');
    expect(answerZapRequest(request(domain, 'PLAIN', Buffer.from('user'), Buffer.from('pass')))[2]!.toString()).toBe(
      '400',
    );
    expect(answerZapRequest(request(domain, 'CURVE', Buffer.alloc(31)))[2]!.toString()).toBe('400');
    const wrongVersion = request(domain, 'CURVE', z85Decode(allowed.publicKey)!);
    wrongVersion[0] = Buffer.from('2.0');
    expect(text(answerZapRequest(wrongVersion)).slice(0, 3)).toEqual(['1.0', '7', '500']);
    expect(text(answerZapRequest([Buffer.from('1.0')]))).toEqual(['1.0', '', '500', 'malformed ZAP request', '', '']);
    expect(refused).toHaveLength(1);

    registration.release();
    expect(zapDomainCount()).toBe(0);
  });

  it('refuses to start a CURVE server while another ZAP handler holds the address', async () => {
    const foreign = track(new zmq.Reply({ linger: 0 }));
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        await foreign.bind(ZAP_ENDPOINT); // an earlier test's handler may still be letting go of it
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
    const keys = generateKeyPair();
    const attempt = createPull({
      name: 'exec-1',
      endpoint: 'tcp://127.0.0.1:*',
      highWaterMark: 10,
      curve: {
        serverSecretKey: keys.secretKey,
        serverPublicKey: keys.publicKey,
        allowedClientKeys: [generateKeyPair().publicKey],
      },
    });
    await expect(attempt).rejects.toBeInstanceOf(HeraldError);
    await expect(attempt).rejects.toMatchObject({ code: 'INTERNAL' });
    expect(zapDomainCount()).toBe(0);
  });
});

describe('CURVE over tcp', () => {
  it("delivers an allowed client's messages", async () => {
    const alice = generateKeyPair();
    const server = await curveServer('exec-1', [alice]);
    expect(server.pull.endpoint).toMatch(/^tcp:\/\/127\.0\.0\.1:\d+$/);
    const push = await curveClient(server, alice);
    for (let i = 1; i <= 3; i += 1) await push.send(halt(i));
    await waitFor(() => server.received.length === 3, 'three messages from the allowed client');
    expect(server.received).toEqual([halt(1), halt(2), halt(3)]);
    expect(server.refusals).toEqual([]);
    expect(zapDomainCount()).toBe(1);
    server.pull.close();
    expect(zapDomainCount()).toBe(0);
  });

  it('refuses a client with a valid keypair that is not in the allow-list', async () => {
    const alice = generateKeyPair();
    const mallory = generateKeyPair();
    const server = await curveServer('exec-1', [alice]);
    const intruder = await curveClient(server, mallory);
    await intruder.send(halt(666)); // queued in the client; its handshake is refused

    await waitFor(() => server.refusals.length >= 1, 'the refusal to be counted');
    expect(server.refusals[0]).toEqual({ channel: 'exec-1' });
    expect(server.warnings[0]).toEqual({
      channel: 'exec-1',
      clientKey: mallory.publicKey,
      address: '127.0.0.1',
      reason: 'client key not allowed',
    });

    const push = await curveClient(server, alice);
    await push.send(halt(1));
    await waitFor(() => server.received.length >= 1, "the allowed client's message");
    expect(server.received).toEqual([halt(1)]);
  });

  it('refuses a client without CURVE', async () => {
    const alice = generateKeyPair();
    const server = await curveServer('exec-1', [alice]);
    const plain = await createPush({ name: 'plain', endpoints: [server.pull.endpoint], highWaterMark: 10 });
    track(plain);
    await plain.send(halt(666));

    await waitFor(() => server.refusals.length >= 1, 'the refusal to be counted');
    expect(server.warnings[0]).toMatchObject({
      channel: 'exec-1',
      endpoint: server.pull.endpoint,
      reason: expect.stringMatching(/MECHANISM_MISMATCH/),
    });

    const push = await curveClient(server, alice);
    await push.send(halt(1));
    await waitFor(() => server.received.length >= 1, "the allowed client's message");
    expect(server.received).toEqual([halt(1)]);
  });

  it('refuses an allowed client that holds the wrong server key', async () => {
    const alice = generateKeyPair();
    const server = await curveServer('exec-1', [alice]);
    const confused = await curveClient(server, alice, generateKeyPair().publicKey);
    await confused.send(halt(666));

    await waitFor(() => server.refusals.length >= 1, 'the refusal to be counted');
    expect(server.warnings[0]).toMatchObject({ channel: 'exec-1', reason: expect.stringMatching(/^handshake failed/) });

    const push = await curveClient(server, alice);
    await push.send(halt(1));
    await waitFor(() => server.received.length >= 1, "the allowed client's message");
    expect(server.received).toEqual([halt(1)]);
  });

  it('keeps two CURVE servers in one process apart, each with its own allow-list', async () => {
    const alice = generateKeyPair();
    const bob = generateKeyPair();
    const a = await curveServer('exec-a', [alice]);
    const b = await curveServer('exec-b', [bob]);
    expect(zapDomainCount()).toBe(2);

    await (await curveClient(b, alice)).send(halt(666));
    await (await curveClient(a, bob)).send(halt(667));
    await waitFor(() => a.refusals.length >= 1 && b.refusals.length >= 1, 'a refusal on each server');
    expect(a.refusals[0]).toEqual({ channel: 'exec-a' });
    expect(a.warnings[0]).toMatchObject({ channel: 'exec-a', clientKey: bob.publicKey });
    expect(b.refusals[0]).toEqual({ channel: 'exec-b' });
    expect(b.warnings[0]).toMatchObject({ channel: 'exec-b', clientKey: alice.publicKey });

    await (await curveClient(a, alice)).send(halt(1));
    await (await curveClient(b, bob)).send(halt(2));
    await waitFor(() => a.received.length >= 1 && b.received.length >= 1, 'one message on each server');
    expect(a.received).toEqual([halt(1)]);
    expect(b.received).toEqual([halt(2)]);

    // Closing one server leaves the other's allow-list enforced.
    a.pull.close();
    expect(zapDomainCount()).toBe(1);
    const carol = generateKeyPair();
    await (await curveClient(b, carol)).send(halt(668));
    await waitFor(
      () => b.warnings.some((w) => w.clientKey === carol.publicKey),
      "the refusal of a new client's key on the remaining server",
    );
    await (await curveClient(b, bob)).send(halt(3));
    await waitFor(() => b.received.length >= 2, 'the next message on the remaining server');
    expect(b.received).toEqual([halt(2), halt(3)]);
  });
});
