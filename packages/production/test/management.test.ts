import { noopLogger } from '@herald/core/ports';
import { isTrafficCut, setTrafficCut } from '@herald/transport';
import {
  hashManagementToken,
  startManagementServer,
  type ManagedProcess,
  type ManagementOptions,
  type ManagementServer,
} from '@herald/production';

/** The management endpoint on its own: routes, the drain hand-shake, the fault switch. */
describe('management endpoint', () => {
  let server: ManagementServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
    setTrafficCut(false);
  });

  function managed(drain: () => Promise<void> = async () => undefined): ManagedProcess & { drains: number } {
    const process_ = {
      id: 'scheduler-7',
      tier: 'scheduler',
      drains: 0,
      status: () => ({ owned: 3 }),
      drain: () => {
        process_.drains++;
        return drain();
      },
      metrics: async () => ({ contentType: 'text/plain; version=0.0.4; charset=utf-8', body: 'herald_up 1\n' }),
    };
    return process_;
  }

  const url = (path: string) => `http://${server!.address}${path}`;
  const TOKEN = 'hmt_test-management-token';
  const TOKEN_HASH = hashManagementToken(TOKEN);
  /** Options with the test credential. */
  const opts = (o: Omit<ManagementOptions, 'tokenHash'>): ManagementOptions => ({ ...o, tokenHash: TOKEN_HASH });
  const auth = { authorization: `Bearer ${TOKEN}` };
  /** fetch with the credential and, for a body, application/json. */
  const call = (path: string, init: { method?: string; body?: string } = {}) =>
    fetch(url(path), {
      ...init,
      headers: { ...auth, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
    });

  it('reports the status, with the tier view, on a free port of loopback', async () => {
    server = await startManagementServer(
      managed(),
      opts({ address: '127.0.0.1:0', faults: false, logger: noopLogger }),
    );
    expect(server.address).toMatch(/^127\.0\.0\.1:\d+$/);
    const status = (await (await call('/status')).json()) as Record<string, unknown>;
    expect(status).toMatchObject({
      id: 'scheduler-7',
      tier: 'scheduler',
      state: 'running',
      owned: 3,
      pid: process.pid,
      trafficCut: false,
    });
  });

  it('serves Prometheus text as it is', async () => {
    server = await startManagementServer(
      managed(),
      opts({ address: '127.0.0.1:0', faults: false, logger: noopLogger }),
    );
    const response = await call('/metrics');
    expect(response.headers.get('content-type')).toContain('text/plain');
    expect(await response.text()).toBe('herald_up 1\n');
  });

  it('drains once, however often it is asked, and says draining meanwhile', async () => {
    let finish!: () => void;
    const process_ = managed(() => new Promise<void>((resolve) => (finish = resolve)));
    server = await startManagementServer(process_, opts({ address: '127.0.0.1:0', faults: false, logger: noopLogger }));
    let drained = false;
    void server.drained.then(() => (drained = true));
    expect((await call('/drain', { method: 'POST', body: '{"id":"scheduler-7"}' })).status).toBe(202);
    expect((await call('/drain', { method: 'POST', body: '{"id":"scheduler-7"}' })).status).toBe(202);
    expect(((await (await call('/status')).json()) as { state: string }).state).toBe('draining');
    expect(process_.drains).toBe(1);
    expect(drained).toBe(false);
    finish();
    await server.drained;
  });

  it('answers unknown routes and methods with a JSON 404', async () => {
    server = await startManagementServer(
      managed(),
      opts({ address: '127.0.0.1:0', faults: false, logger: noopLogger }),
    );
    for (const [method, path] of [
      ['GET', '/nope'],
      ['GET', '/drain'],
      ['DELETE', '/status'],
    ] as const) {
      const response = await call(path, { method });
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ code: 'NOT_FOUND' });
    }
  });

  it('refuses the fault routes unless management.faults is on', async () => {
    server = await startManagementServer(
      managed(),
      opts({ address: '127.0.0.1:0', faults: false, logger: noopLogger }),
    );
    const response = await call('/faults/traffic-cut', { method: 'POST', body: JSON.stringify({ cut: true }) });
    expect(response.status).toBe(404);
    expect(isTrafficCut()).toBe(false);
  });

  it('cuts and restores the traffic when faults are on, and refuses a malformed body', async () => {
    server = await startManagementServer(managed(), opts({ address: '127.0.0.1:0', faults: true, logger: noopLogger }));
    for (const body of ['{"cut":"yes"}', 'not json', '{}', 'x'.repeat(5000)]) {
      const response = await call('/faults/traffic-cut', { method: 'POST', body });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'VALIDATION' });
    }
    await call('/faults/traffic-cut', { method: 'POST', body: JSON.stringify({ cut: true }) });
    expect(isTrafficCut()).toBe(true);
    expect(((await (await call('/status')).json()) as { trafficCut: boolean }).trafficCut).toBe(true);
    await call('/faults/traffic-cut', { method: 'POST', body: JSON.stringify({ cut: false }) });
    expect(isTrafficCut()).toBe(false);
  });

  it('fails to start on an address in use, naming it', async () => {
    server = await startManagementServer(
      managed(),
      opts({ address: '127.0.0.1:0', faults: false, logger: noopLogger }),
    );
    await expect(
      startManagementServer(managed(), opts({ address: server.address, faults: false, logger: noopLogger })),
    ).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringMatching(/management\.endpoints\.scheduler-7.*EADDRINUSE/),
    });
  });
});
