import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compileConfig, type HeraldOptions } from '@herald/core/config';
import type { DeliveryGateway } from '@herald/core/ports';
import { makeTempDir, ZmqPushReceiver, type TempDir } from '@herald/testing';
import * as zmq from 'zeromq';
import { createDeliveryGateway } from './delivery-gateway';

/**
 * `delivery.kind: 'zmq'` opened from config, as every profile does: the key
 * files read at start (each bad one a ConfigError naming its setting), then
 * a paced channel that reaches the reference receiver over CURVE.
 */
describe('the ZeroMQ push gateway from config', () => {
  let dir: TempDir;
  let receiver: ZmqPushReceiver | undefined;
  let gateway: DeliveryGateway | undefined;
  const server = zmq.curveKeyPair();
  const client = zmq.curveKeyPair();
  beforeEach(async () => {
    dir = await makeTempDir('herald-zmq-channel-');
    await writeFile(join(dir.path, 'push.pub'), `${server.publicKey}\n`);
    await writeFile(join(dir.path, 'executor-1.key'), JSON.stringify(client));
  });
  afterEach(async () => {
    await gateway?.close();
    await receiver?.stop();
    gateway = undefined;
    receiver = undefined;
    await dir.remove();
  });

  const open = (zmqOptions: NonNullable<NonNullable<HeraldOptions['delivery']>['zmq']>) =>
    createDeliveryGateway(compileConfig({ delivery: { kind: 'zmq', zmq: zmqOptions } }).delivery, '/nowhere');

  it('delivers through CURVE with the key files it names, as the client the service admits', async () => {
    receiver = await ZmqPushReceiver.start({ curve: server, allowedClientKeys: [client.publicKey] });
    gateway = open({
      endpoint: receiver.endpoint,
      serverPublicKeyFile: join(dir.path, 'push.pub'),
      keyPairFile: join(dir.path, 'executor-1.key'),
    });
    await gateway.deliver({ taskId: 1, uins: Uint32Array.of(4, 8), content: { body: 'hi' }, atLogin: false });
    expect(receiver.uinsOf(1)).toEqual([4, 8]);
  });

  it('without keyPairFile, connects with a fresh pair that a service admitting only known clients refuses', async () => {
    receiver = await ZmqPushReceiver.start({ curve: server, allowedClientKeys: [client.publicKey] });
    gateway = open({
      endpoint: receiver.endpoint,
      serverPublicKeyFile: join(dir.path, 'push.pub'),
      timeoutMs: 200,
      maxAttempts: 1,
      pacing: { breakerOpenMs: 100, maxHoldMs: 500 },
    });
    const error = await gateway
      .deliver({ taskId: 2, uins: Uint32Array.of(1), content: { body: 'hi' }, atLogin: false })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'UNAVAILABLE' });
    expect(receiver.requests).toEqual([]);
  });

  it.each([
    ['a missing server key file', { serverPublicKeyFile: 'missing.pub' }, 'delivery.zmq.serverPublicKeyFile'],
    [
      'a server key file that is not a key',
      { serverPublicKeyFile: 'executor-1.key' },
      'delivery.zmq.serverPublicKeyFile',
    ],
    ['an unreadable key pair file', { keyPairFile: '.' }, 'delivery.zmq.keyPairFile'],
    ['a key pair file that is not JSON', { keyPairFile: 'push.pub' }, 'delivery.zmq.keyPairFile'],
    ['a key pair that is not one pair', { keyPairFile: 'mismatched.key' }, 'delivery.zmq.keyPairFile'],
  ])('refuses to start with %s, naming %s', async (_what, files, setting) => {
    await writeFile(
      join(dir.path, 'mismatched.key'),
      JSON.stringify({ publicKey: server.publicKey, secretKey: client.secretKey }),
    );
    const inDir = Object.fromEntries(Object.entries(files).map(([key, name]) => [key, join(dir.path, name)]));
    expect(() =>
      open({ endpoint: 'tcp://127.0.0.1:5600', serverPublicKeyFile: join(dir.path, 'push.pub'), ...inDir }),
    ).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', details: { setting } }));
  });
});
