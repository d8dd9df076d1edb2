import { ConfigError } from '@herald/core';
import { noopLogger } from '@herald/core/ports';
import { isTrafficCut, setTrafficCut } from '@herald/transport';
import {
  hashManagementToken,
  requiredTokenHash,
  startManagementServer,
  type ManagedProcess,
  type ManagementServer,
} from '@herald/production';
import { sendRaw, sweepManagementPort } from '@herald/testing';

/** Every door of the management endpoint locked: credential, Origin, content type, complete bodies, loopback (docs/security.md). */
describe('management endpoint guard', () => {
  const TOKEN = 'hmt_guard-test-token';
  let server: ManagementServer | undefined;
  let drains = 0;
  afterEach(async () => {
    await server?.close();
    server = undefined;
    setTrafficCut(false);
  });

  const managed: ManagedProcess = {
    id: 'executor-3',
    tier: 'executor',
    status: () => ({}),
    drain: async () => {
      drains++;
    },
    metrics: async () => ({ contentType: 'text/plain', body: 'herald_up 1\n' }),
  };
  const start = async (faults = true) =>
    (server = await startManagementServer(managed, {
      address: '127.0.0.1:0',
      faults,
      tokenHash: hashManagementToken(TOKEN),
      logger: noopLogger,
    }));
  const bearer = { authorization: `Bearer ${TOKEN}` };
  const status = async () =>
    (await (await fetch(`http://${server!.address}/status`, { headers: bearer })).json()) as {
      state: string;
      trafficCut: boolean;
    };

  beforeEach(() => (drains = 0));

  it('refuses every unauthenticated, cross-origin, truncated or mistyped request with 401 or 403, and changes nothing', async () => {
    await start();
    const answers = await sweepManagementPort(server!.address, managed.id, TOKEN);
    expect(answers.filter((a) => a.status !== 401 && a.status !== 403)).toEqual([]);
    expect(answers.filter((a) => /Origin/.test(a.request)).every((a) => a.status === 403)).toBe(true);
    expect(drains).toBe(0);
    expect(await status()).toMatchObject({ state: 'running', trafficCut: false });
  });

  it("refuses the issue's cross-origin simple request (curl -X POST -H Origin -H 'Content-Type: text/plain' --data x)", async () => {
    await start();
    expect(
      await sendRaw(server!.address, {
        name: 'simple',
        method: 'POST',
        path: '/drain',
        headers: { origin: 'http://evil.example', 'content-type': 'text/plain' },
        body: 'x',
      }),
    ).toBe(403);
    expect(drains).toBe(0);
  });

  it('with the token, still refuses a drain that is not a complete application/json body naming this process', async () => {
    await start();
    const post = (headers: Record<string, string>, body?: string, declared?: number) =>
      sendRaw(server!.address, {
        name: 'drain',
        method: 'POST',
        path: '/drain',
        headers: { ...bearer, ...headers },
        ...(body === undefined ? {} : { body }),
        ...(declared === undefined ? {} : { declared }),
      });
    const json = { 'content-type': 'application/json' };
    expect(await post({ 'content-type': 'text/plain' }, '{"id":"executor-3"}')).toBe(415);
    expect(await post({}, '{"id":"executor-3"}')).toBe(415);
    expect(await post(json)).toBe(400);
    expect(await post(json, '{"id":"executor-9"}')).toBe(400);
    expect(await post(json, '{"id":"exec')).toBe(400);
    // Cut short: Content-Length promises more than arrives before the client hangs up.
    expect([400, 'closed']).toContain(await post(json, '{"id":"executor-3"', 19));
    expect(drains).toBe(0);
    expect((await status()).state).toBe('running');
    expect(await post(json, '{"id":"executor-3"}')).toBe(202);
    expect(drains).toBe(1);
  });

  it('with the token, refuses a fault switch that is mistyped or cut short', async () => {
    await start();
    const post = (type: string, body: string, declared?: number) =>
      sendRaw(server!.address, {
        name: 'cut',
        method: 'POST',
        path: '/faults/traffic-cut',
        headers: { ...bearer, 'content-type': type },
        body,
        ...(declared === undefined ? {} : { declared }),
      });
    expect(await post('text/plain', '{"cut":true}')).toBe(415);
    expect([400, 'closed']).toContain(await post('application/json', '{"cut":true', 12));
    expect(isTrafficCut()).toBe(false);
    expect(await post('application/json; charset=utf-8', '{"cut":true}')).toBe(200);
    expect(isTrafficCut()).toBe(true);
  });

  it('listens on loopback only unless allowRemote', async () => {
    const options = { address: '0.0.0.0:0', faults: false, tokenHash: hashManagementToken(TOKEN), logger: noopLogger };
    await expect(startManagementServer(managed, options)).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringMatching(/management\.endpoints\.executor-3.*allowRemote/),
    });
    server = await startManagementServer(managed, { ...options, allowRemote: true });
    expect(server.address).toMatch(/^0\.0\.0\.0:\d+$/);
  });

  it('makes a production process without a credential refuse to start, naming management.tokenHash', () => {
    expect(() => requiredTokenHash(null)).toThrow(ConfigError);
    expect(() => requiredTokenHash(null)).toThrow(/management\.tokenHash/);
    expect(requiredTokenHash('ab'.repeat(32))).toBe('ab'.repeat(32));
  });
});
