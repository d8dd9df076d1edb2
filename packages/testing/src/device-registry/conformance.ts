import { ErrorCodes } from '@herald/core';
import { MAX_DEVICES_PER_UIN, type Device, type DeviceRegistry } from '@herald/core/ports';
import { rejectsWithCode } from '../assertions';
import type { OpenedStore } from '../store-factory';

/** A fresh, empty registry, and a way to reopen the same storage after `close` (a restart). */
export interface OpenedDeviceRegistry extends OpenedStore<DeviceRegistry> {
  reopen(): Promise<DeviceRegistry>;
}

export type DeviceRegistryFactory = () => Promise<OpenedDeviceRegistry>;

/** An FCM-shaped token, distinct per n. */
export const fcmToken = (n: number): string => `fcm-${String(n).padStart(6, '0')}:APA91b${'x'.repeat(140)}`;
/** An APNs-shaped token (64 hex digits), distinct per n. */
export const apnsToken = (n: number): string => n.toString(16).padStart(64, 'a');

const u32 = (...uins: number[]): Uint32Array => Uint32Array.from(uins);
const tokensOf = (devices: Device[]): string[] => devices.map((d) => d.token);

/**
 * The DeviceRegistry contract (core ports/device-registry.ts) as tests. Every
 * adapter's test file calls this with a factory that opens a fresh, empty
 * registry and can reopen it after close; each test gets its own.
 *
 * @example
 *   deviceRegistryConformance('LevelDeviceRegistry', async () => {
 *     const dir = await makeTempDir('herald-devices-');
 *     return { store: await LevelDeviceRegistry.open(dir.path), reopen: () => LevelDeviceRegistry.open(dir.path), cleanup: dir.remove };
 *   });
 */
export function deviceRegistryConformance(name: string, open: DeviceRegistryFactory): void {
  describe(`DeviceRegistry conformance: ${name}`, () => {
    let opened: OpenedDeviceRegistry | undefined;
    let current: DeviceRegistry | undefined;
    beforeEach(async () => {
      opened = await open();
      current = opened.store;
    });
    afterEach(async () => {
      const [o, c] = [opened, current];
      opened = undefined;
      current = undefined;
      if (o === undefined) return;
      try {
        await c?.close();
      } finally {
        await o.cleanup();
      }
    });
    const registry = (): DeviceRegistry => {
      if (current === undefined) throw new Error('conformance: no registry is open (used outside a test?)');
      return current;
    };
    const tokensOfUins = async (...uins: number[]) => (await registry().devicesOf(u32(...uins))).map(tokensOf);

    it('answers each user its devices, aligned with the input, empty for a user with none', async () => {
      await registry().register({ uin: 7, platform: 'fcm', token: fcmToken(1), accountId: 'acme' });
      await registry().register({ uin: 7, platform: 'apns', token: apnsToken(2) });
      await registry().register({ uin: 0xffffffff, platform: 'apns', token: apnsToken(3) });
      const devices = await registry().devicesOf(u32(0, 7, 7, 9, 0xffffffff));
      expect(devices.map(tokensOf)).toEqual([
        [],
        [fcmToken(1), apnsToken(2)],
        [fcmToken(1), apnsToken(2)],
        [],
        [apnsToken(3)],
      ]);
      expect(devices[1]![0]).toMatchObject({ uin: 7, platform: 'fcm', token: fcmToken(1), accountId: 'acme' });
      expect(devices[1]![1]).toMatchObject({ uin: 7, platform: 'apns', token: apnsToken(2) });
      expect(devices[1]![1]!.accountId).toBeUndefined();
      expect(typeof devices[1]![0]!.registeredAt).toBe('number');
      expect(await registry().devicesOf(new Uint32Array(0))).toEqual([]);
    });

    it('moves a token registered again to its new user, as that user’s newest device', async () => {
      await registry().register({ uin: 1, platform: 'fcm', token: fcmToken(1) });
      await registry().register({ uin: 1, platform: 'fcm', token: fcmToken(2) });
      await registry().register({ uin: 1, platform: 'fcm', token: fcmToken(1) });
      expect(await tokensOfUins(1)).toEqual([[fcmToken(2), fcmToken(1)]]);
      await registry().register({ uin: 2, platform: 'fcm', token: fcmToken(1) });
      expect(await tokensOfUins(1, 2)).toEqual([[fcmToken(2)], [fcmToken(1)]]);
    });

    it(`keeps at most ${MAX_DEVICES_PER_UIN} devices per user, dropping the oldest`, async () => {
      for (let n = 1; n <= MAX_DEVICES_PER_UIN; n++)
        expect(await registry().register({ uin: 5, platform: 'fcm', token: fcmToken(n) })).toEqual({ replaced: [] });
      const result = await registry().register({ uin: 5, platform: 'apns', token: apnsToken(99) });
      expect(result).toEqual({ replaced: [fcmToken(1)] });
      const expected = [...Array.from({ length: MAX_DEVICES_PER_UIN - 1 }, (_, i) => fcmToken(i + 2)), apnsToken(99)];
      expect(await tokensOfUins(5)).toEqual([expected]);
      // Registering a token the user already has replaces nothing.
      expect(await registry().register({ uin: 5, platform: 'fcm', token: fcmToken(4) })).toEqual({ replaced: [] });
    });

    it('stores an APNs token lower-case, so one device in two cases is one registration', async () => {
      const upper = apnsToken(0xabc).toUpperCase();
      await registry().register({ uin: 3, platform: 'apns', token: upper });
      await registry().register({ uin: 3, platform: 'apns', token: apnsToken(0xabc) });
      expect(await tokensOfUins(3)).toEqual([[apnsToken(0xabc)]]);
      expect(await registry().remove(upper)).toBe(true);
      expect(await tokensOfUins(3)).toEqual([[]]);
    });

    it('removes a token, answering whether it was registered', async () => {
      await registry().register({ uin: 4, platform: 'fcm', token: fcmToken(1) });
      await registry().register({ uin: 4, platform: 'fcm', token: fcmToken(2) });
      expect(await registry().remove(fcmToken(1))).toBe(true);
      expect(await registry().remove(fcmToken(1))).toBe(false);
      expect(await tokensOfUins(4)).toEqual([[fcmToken(2)]]);
    });

    it('removes dead tokens of several users, counting only those still registered', async () => {
      await registry().register({ uin: 1, platform: 'fcm', token: fcmToken(1) });
      await registry().register({ uin: 2, platform: 'apns', token: apnsToken(2) });
      await registry().register({ uin: 2, platform: 'fcm', token: fcmToken(3) });
      expect(await registry().removeDead([fcmToken(1), apnsToken(2), fcmToken(8), fcmToken(1)])).toBe(2);
      expect(await registry().removeDead([])).toBe(0);
      expect(await tokensOfUins(1, 2)).toEqual([[], [fcmToken(3)]]);
    });

    it('keeps registrations across a close and reopen', async () => {
      await registry().register({ uin: 11, platform: 'fcm', token: fcmToken(1) });
      await registry().register({ uin: 11, platform: 'fcm', token: fcmToken(2) });
      const closing = registry();
      current = undefined;
      await closing.close();
      current = await opened!.reopen();
      expect(await tokensOfUins(11)).toEqual([[fcmToken(1), fcmToken(2)]]);
      // The order of registrations continues after the restart.
      await registry().register({ uin: 11, platform: 'fcm', token: fcmToken(1) });
      expect(await tokensOfUins(11)).toEqual([[fcmToken(2), fcmToken(1)]]);
    });

    it('keeps concurrent registrations, each user within the limit', async () => {
      await Promise.all(
        Array.from({ length: 36 }, (_, n) =>
          registry().register({ uin: 100 + (n % 3), platform: 'fcm', token: fcmToken(n) }),
        ),
      );
      const lists = await registry().devicesOf(u32(100, 101, 102));
      expect(lists.map((l) => l.length)).toEqual([MAX_DEVICES_PER_UIN, MAX_DEVICES_PER_UIN, MAX_DEVICES_PER_UIN]);
      expect(new Set(lists.flat().map((d) => d.token)).size).toBe(30);
    });

    it('refuses bad input with a ValidationError naming the field', async () => {
      const refuses = async (call: Promise<unknown>, field: string) =>
        expect((await rejectsWithCode(call, ErrorCodes.VALIDATION_FAILED)).details).toMatchObject({ field });
      await refuses(registry().register({ uin: 1, platform: 'apns', token: fcmToken(1) }), 'token');
      await refuses(registry().register({ uin: 1, platform: 'fcm', token: 'short' }), 'token');
      await refuses(registry().register({ uin: 2 ** 32, platform: 'fcm', token: fcmToken(1) }), 'uin');
      await refuses(registry().register({ uin: -1, platform: 'fcm', token: fcmToken(1) }), 'uin');
      await refuses(registry().register({ uin: 1, platform: 'sms' as 'fcm', token: fcmToken(1) }), 'platform');
      await refuses(
        registry().register({ uin: 1, platform: 'fcm', token: fcmToken(1), accountId: 'A B' }),
        'accountId',
      );
      await refuses(registry().devicesOf(u32(5, 1)), 'uins');
      await refuses(registry().remove('no spaces allowed here'), 'token');
      await refuses(registry().removeDead([fcmToken(1), 'bad token']), 'tokens[1]');
      expect(await tokensOfUins(1)).toEqual([[]]);
    });

    it('fails every call with STORE_CLOSED after close', async () => {
      const closed = registry();
      current = undefined;
      await closed.close();
      await rejectsWithCode(closed.register({ uin: 1, platform: 'fcm', token: fcmToken(1) }), ErrorCodes.STORE_CLOSED);
      await rejectsWithCode(closed.devicesOf(u32(1)), ErrorCodes.STORE_CLOSED);
      await rejectsWithCode(closed.remove(fcmToken(1)), ErrorCodes.STORE_CLOSED);
      await rejectsWithCode(closed.removeDead([fcmToken(1)]), ErrorCodes.STORE_CLOSED);
    });
  });
}
