import { deviceRegistryConformance, fcmToken, makeTempDir } from '@herald/testing';
import { LevelDeviceRegistry } from './level-device-registry';

deviceRegistryConformance('LevelDeviceRegistry', async () => {
  const dir = await makeTempDir('herald-level-devices-');
  return {
    store: await LevelDeviceRegistry.open(dir.path),
    reopen: () => LevelDeviceRegistry.open(dir.path),
    cleanup: dir.remove,
  };
});

describe('LevelDeviceRegistry', () => {
  it('stamps a registration with the injected clock', async () => {
    const dir = await makeTempDir('herald-level-devices-');
    const registry = await LevelDeviceRegistry.open(dir.path, { now: () => 1_700_000_000_000 });
    try {
      await registry.register({ uin: 1, platform: 'fcm', token: fcmToken(1) });
      expect((await registry.devicesOf(Uint32Array.of(1)))[0]![0]!.registeredAt).toBe(1_700_000_000_000);
    } finally {
      await registry.close();
      await dir.remove();
    }
  });
});
