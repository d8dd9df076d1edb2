import { compileConfig } from './compile';
import { DEFAULTS } from './defaults';
import type { HeraldOptions } from './options';

const settingOf = (options: HeraldOptions): string | undefined => {
  try {
    compileConfig(options);
  } catch (error) {
    return (error as { setting?: string }).setting;
  }
  return undefined;
};

describe('mobile-push delivery configuration', () => {
  it('compiles FCM with the real endpoints as defaults, and with every setting given', () => {
    expect(
      compileConfig({ delivery: { kind: 'fcm', fcm: { credentialsFile: '/etc/herald/fcm.json' } } }).delivery,
    ).toEqual({
      kind: 'fcm',
      fcm: {
        credentialsFile: '/etc/herald/fcm.json',
        projectId: null,
        endpoint: 'https://fcm.googleapis.com',
        tokenUrl: 'https://oauth2.googleapis.com/token',
        caFile: null,
        concurrency: 100,
        timeoutMs: 10_000,
        maxAttempts: 5,
        retryDelayMs: 200,
        pacing: DEFAULTS.delivery.webhook.pacing,
      },
    });
    const fcm = {
      credentialsFile: 'fcm.json',
      projectId: 'my-app-1234',
      endpoint: 'https://127.0.0.1:8443',
      tokenUrl: 'https://127.0.0.1:8443/token',
      caFile: 'ca.pem',
      concurrency: 8,
      timeoutMs: 500,
      maxAttempts: 2,
      retryDelayMs: 0,
    };
    expect(compileConfig({ delivery: { kind: 'fcm', fcm } }).delivery).toEqual({
      kind: 'fcm',
      fcm: { ...fcm, pacing: DEFAULTS.delivery.webhook.pacing },
    });
  });

  it('compiles APNs with its defaults', () => {
    const apns = { keyFile: 'AuthKey.p8', keyId: 'ABC123DEFG', teamId: 'TEAM123456', topic: 'com.example.app' };
    expect(compileConfig({ delivery: { kind: 'apns', apns } }).delivery).toEqual({
      kind: 'apns',
      apns: {
        ...apns,
        endpoint: 'https://api.push.apple.com',
        pushType: 'alert',
        caFile: null,
        concurrency: 100,
        timeoutMs: 10_000,
        maxAttempts: 5,
        retryDelayMs: 200,
        pacing: DEFAULTS.delivery.webhook.pacing,
      },
    });
  });

  it('names the setting of a missing or bad value', () => {
    const apns = { keyFile: 'k.p8', keyId: 'ABC123DEFG', teamId: 'TEAM123456', topic: 'com.example.app' };
    const cases: [HeraldOptions['delivery'], string][] = [
      [{ kind: 'fcm' }, 'delivery.fcm.credentialsFile'],
      [{ kind: 'fcm', fcm: {} }, 'delivery.fcm.credentialsFile'],
      [{ kind: 'fcm', fcm: { credentialsFile: '' } }, 'delivery.fcm.credentialsFile'],
      [{ kind: 'fcm', fcm: { credentialsFile: 'f', endpoint: 'http://fcm.local' } }, 'delivery.fcm.endpoint'],
      [{ kind: 'fcm', fcm: { credentialsFile: 'f', tokenUrl: 'nope' } }, 'delivery.fcm.tokenUrl'],
      [{ kind: 'fcm', fcm: { credentialsFile: 'f', concurrency: 0 } }, 'delivery.fcm.concurrency'],
      [{ kind: 'fcm', fcm: { credentialsFile: 'f', projectId: 'Bad Id' } }, 'delivery.fcm.projectId'],
      [{ kind: 'fcm', fcm: { credentialsFile: 'f', pacing: { maxRate: 0 } } }, 'delivery.fcm.pacing.maxRate'],
      [{ kind: 'fcm', fcm: { credentialsFile: 'f', keyId: 'x' } as never }, 'delivery.fcm.keyId'],
      [{ kind: 'webhook', webhook: { url: 'http://x' }, fcm: {} }, 'delivery.fcm'],
      [{ kind: 'apns' }, 'delivery.apns.keyFile'],
      [{ kind: 'apns', apns: { ...apns, keyId: undefined } }, 'delivery.apns.keyId'],
      [{ kind: 'apns', apns: { ...apns, keyId: 'abc' } }, 'delivery.apns.keyId'],
      [{ kind: 'apns', apns: { ...apns, teamId: 'team' } }, 'delivery.apns.teamId'],
      [{ kind: 'apns', apns: { ...apns, topic: 'has space' } }, 'delivery.apns.topic'],
      [{ kind: 'apns', apns: { ...apns, pushType: 'voip' as 'alert' } }, 'delivery.apns.pushType'],
    ];
    for (const [delivery, setting] of cases) expect([delivery, settingOf({ delivery })]).toEqual([delivery, setting]);
  });
});
