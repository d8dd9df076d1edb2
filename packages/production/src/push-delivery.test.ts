import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { compileConfig, type ApnsDeliveryConfig, type FcmDeliveryConfig } from '@herald/core/config';
import {
  apnsToken,
  fcmToken,
  Http2ApnsServer,
  Http2FcmServer,
  makeTempDir,
  MemoryDeviceRegistry,
  type TempDir,
} from '@herald/testing';
import { openApnsChannel, openFcmChannel } from './push-delivery';

describe('the FCM channel of the production profile', () => {
  let dir: TempDir;
  let server: Http2FcmServer;
  beforeEach(async () => {
    dir = await makeTempDir('herald-fcm-channel-');
    server = await Http2FcmServer.start();
  });
  afterEach(async () => {
    await server.stop();
    await dir.remove();
  });

  async function fcmConfig(files: { credentials?: string; ca?: string } = {}): Promise<FcmDeliveryConfig> {
    const credentialsFile = join(dir.path, 'fcm.json');
    const caFile = join(dir.path, 'ca.pem');
    await writeFile(credentialsFile, files.credentials ?? server.serviceAccountJson);
    await writeFile(caFile, files.ca ?? server.ca);
    const config = compileConfig({
      delivery: {
        kind: 'fcm',
        fcm: { credentialsFile, caFile, endpoint: server.endpoint, tokenUrl: server.tokenUrl, timeoutMs: 2000 },
      },
    });
    if (config.delivery.kind !== 'fcm') throw new Error('an fcm config');
    return config.delivery.fcm;
  }

  it('sends through the local server named in the settings, and closes the registry with the gateway', async () => {
    const registry = new MemoryDeviceRegistry();
    await registry.register({ uin: 5, platform: 'fcm', token: fcmToken(5) });
    const gateway = openFcmChannel(await fcmConfig(), registry);
    expect(server.exchanges).toBe(0); // nothing on the network at start
    expect(
      await gateway.deliver({ taskId: 1, uins: Uint32Array.of(5, 6), content: { body: 'hi' }, atLogin: false }),
    ).toEqual({ rejected: [{ uin: 6, reason: 'no_device' }] });
    expect(server.accepted.map((r) => r.token)).toEqual([fcmToken(5)]);
    await gateway.close();
    await expect(registry.devicesOf(Uint32Array.of(5))).rejects.toMatchObject({ code: 'STORE_CLOSED' });
  });

  it('refuses to start, naming the setting, on a missing, unreadable or invalid key file', async () => {
    const settingOf = async (config: FcmDeliveryConfig) => {
      try {
        openFcmChannel(config, new MemoryDeviceRegistry());
      } catch (error) {
        expect(error).toMatchObject({ code: 'CONFIG_INVALID' });
        return (error as { setting: string }).setting;
      }
      return 'started';
    };
    const good = await fcmConfig();
    expect(await settingOf({ ...good, credentialsFile: join(dir.path, 'missing.json') })).toBe(
      'delivery.fcm.credentialsFile',
    );
    const aDirectory = join(dir.path, 'sub');
    await mkdir(aDirectory);
    expect(await settingOf({ ...good, credentialsFile: aDirectory })).toBe('delivery.fcm.credentialsFile');
    expect(await settingOf(await fcmConfig({ credentials: '{"type": "service_account"}' }))).toBe(
      'delivery.fcm.credentialsFile',
    );
    const broken = JSON.stringify({ ...JSON.parse(server.serviceAccountJson), private_key: 'not a key' });
    expect(await settingOf(await fcmConfig({ credentials: broken }))).toBe('delivery.fcm.credentialsFile');
    await fcmConfig(); // the good key file again
    expect(await settingOf({ ...good, caFile: join(dir.path, 'no-ca.pem') })).toBe('delivery.fcm.caFile');
    // Unreadable by permissions, where the test does not run as root (root reads it anyway).
    if (process.getuid?.() !== 0) {
      await chmod(good.credentialsFile, 0o000);
      expect(await settingOf(good)).toBe('delivery.fcm.credentialsFile');
    }
  });
});

describe('the APNs channel of the production profile', () => {
  let dir: TempDir;
  let server: Http2ApnsServer;
  beforeEach(async () => {
    dir = await makeTempDir('herald-apns-channel-');
    server = await Http2ApnsServer.start();
  });
  afterEach(async () => {
    await server.stop();
    await dir.remove();
  });

  async function apnsConfig(key = server.keyPem): Promise<ApnsDeliveryConfig> {
    const keyFile = join(dir.path, 'AuthKey.p8');
    const caFile = join(dir.path, 'ca.pem');
    await writeFile(keyFile, key);
    await writeFile(caFile, server.ca);
    const { keyId, teamId, topic, endpoint } = server;
    const config = compileConfig({
      delivery: { kind: 'apns', apns: { keyFile, caFile, keyId, teamId, topic, endpoint, timeoutMs: 2000 } },
    });
    if (config.delivery.kind !== 'apns') throw new Error('an apns config');
    return config.delivery.apns;
  }

  it('sends through the local server named in the settings', async () => {
    const registry = new MemoryDeviceRegistry();
    await registry.register({ uin: 5, platform: 'apns', token: apnsToken(5) });
    const gateway = openApnsChannel(await apnsConfig(), registry);
    expect(
      await gateway.deliver({ taskId: 1, uins: Uint32Array.of(5), content: { body: 'hi' }, atLogin: false }),
    ).toEqual({ rejected: [] });
    expect(server.accepted.map((r) => r.token)).toEqual([apnsToken(5)]);
    await gateway.close();
  });

  it('refuses to start, naming delivery.apns.keyFile, on a missing or invalid key', async () => {
    const settingOf = (config: ApnsDeliveryConfig) => {
      try {
        openApnsChannel(config, new MemoryDeviceRegistry());
      } catch (error) {
        expect(error).toMatchObject({ code: 'CONFIG_INVALID' });
        return (error as { setting: string }).setting;
      }
      return 'started';
    };
    const good = await apnsConfig();
    expect(settingOf({ ...good, keyFile: join(dir.path, 'missing.p8') })).toBe('delivery.apns.keyFile');
    expect(settingOf(await apnsConfig('-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----\n'))).toBe(
      'delivery.apns.keyFile',
    );
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
    expect(settingOf(await apnsConfig(privateKey.export({ type: 'pkcs8', format: 'pem' }) as string))).toBe(
      'delivery.apns.keyFile',
    );
  });
});
