import { apnsToken, fcmToken } from '@herald/testing';
import { openTestAccess, type TestAccess } from '../access/test-access.test-util';
import { startTestServer, type TestServer } from '../access/test-server.test-util';

let tokens: TestAccess;
let server: TestServer;
let operator: string;
beforeAll(async () => {
  tokens = await openTestAccess();
  // uinSpaceBits 20 (the test server's): uins 0 .. 2^20 - 1.
  server = await startTestServer({ access: tokens.access });
  operator = await tokens.token('operator', ['acme'], 'acme ops');
});
afterAll(async () => {
  await server.close();
  await tokens.close();
});

const put = (token: string, body: unknown, as = tokens.adminToken) =>
  server.call(as, { method: 'PUT', path: `/api/v1/devices/${token}`, body });
const devicesOf = (uin: number | string) =>
  server.call(tokens.adminToken, { method: 'GET', path: `/api/v1/recipients/${uin}/devices` });

describe('the device routes', () => {
  it('register, list and remove a user’s devices; an APNs token answers lower-case', async () => {
    const first = await put(fcmToken(1), { uin: 77, platform: 'fcm', accountId: 'acme' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ token: fcmToken(1), uin: 77, platform: 'fcm', accountId: 'acme', replaced: [] });
    const second = await put(apnsToken(2).toUpperCase(), { uin: 77, platform: 'apns' });
    expect(second.body).toMatchObject({ token: apnsToken(2), platform: 'apns', replaced: [] });
    const listed = await devicesOf(77);
    expect(listed.status).toBe(200);
    expect((listed.body.devices as { token: string }[]).map((d) => d.token)).toEqual([fcmToken(1), apnsToken(2)]);

    const removed = await server.call(tokens.adminToken, { method: 'DELETE', path: `/api/v1/devices/${fcmToken(1)}` });
    expect(removed.body).toEqual({ token: fcmToken(1), removed: true });
    const again = await server.call(tokens.adminToken, { method: 'DELETE', path: `/api/v1/devices/${fcmToken(1)}` });
    expect(again.body).toEqual({ token: fcmToken(1), removed: false });
    expect((await devicesOf(77)).body.devices).toHaveLength(1);
  });

  it('names the field of a bad registration', async () => {
    const fieldOf = async (token: string, body: unknown) => {
      const answer = await put(token, body);
      expect(answer.status).toBe(400);
      expect(answer.body.error?.code).toBe('VALIDATION_FAILED');
      return (answer.body.error?.details as { field?: string } | undefined)?.field;
    };
    expect(await fieldOf(fcmToken(3), { uin: 1, platform: 'apns' })).toBe('token');
    expect(await fieldOf('abc', { uin: 1, platform: 'fcm' })).toBe('token');
    expect(await fieldOf(fcmToken(3), { uin: 2 ** 20, platform: 'fcm' })).toBe('uin');
    expect(await fieldOf(fcmToken(3), { uin: 1, platform: 'sms' })).toBe('platform');
    expect(await fieldOf(fcmToken(3), { uin: 1, platform: 'fcm', os: 'android' })).toBe('os');
    expect(await fieldOf(fcmToken(3), { platform: 'fcm' })).toBe('uin');
    const outside = await devicesOf(2 ** 20);
    expect(outside.status).toBe(400);
    expect(outside.body.error?.details).toMatchObject({ field: 'uin' });
    expect((await devicesOf(1)).body).toEqual({ uin: 1, devices: [] });
  });

  it('refuses an operator token: the registry is the whole uin space’s', async () => {
    const answer = await put(fcmToken(4), { uin: 1, platform: 'fcm', accountId: 'acme' }, operator);
    expect(answer.status).toBe(403);
    expect(answer.body.error?.code).toBe('FORBIDDEN');
  });
});
