import type { Meter } from '@herald/core/ports';
import { openTestAccess, type TestAccess } from './access/test-access.test-util';
import { startTestServer, type TestServer } from './access/test-server.test-util';

/** Error answers counted by code and status, wherever they come from; requests by route pattern, never the raw URL. */
describe('API metrics', () => {
  let tokens: TestAccess;
  let server: TestServer;
  const counts = new Map<string, number>();
  const requests: Record<string, string>[] = [];
  const meter: Meter = {
    counter: (name) => ({
      inc: (labels, value = 1) =>
        void counts.set(
          `${name}${JSON.stringify(labels ?? {})}`,
          (counts.get(`${name}${JSON.stringify(labels ?? {})}`) ?? 0) + value,
        ),
    }),
    gauge: () => ({ set() {} }),
    histogram: (name) => ({
      observe: (_value, labels) => void (name === 'herald_api_request_seconds' && requests.push(labels ?? {})),
    }),
  };
  const errors = (code: string, status: number) =>
    counts.get(`herald_api_errors_total${JSON.stringify({ code, status: String(status) })}`) ?? 0;

  beforeAll(async () => {
    tokens = await openTestAccess();
    server = await startTestServer({ access: tokens.access, meter });
  });

  afterAll(async () => {
    await server.close();
    await tokens.close();
  });

  it('counts error answers by code: the guard, schema violations, handlers, unknown routes and router errors', async () => {
    await server.call(undefined, { method: 'GET', path: '/api/v1/tasks' });
    await server.call(tokens.adminToken, { method: 'POST', path: '/api/v1/tasks', body: { accountId: 'acme' } });
    await server.call(tokens.adminToken, { method: 'GET', path: '/api/v1/tasks/12345' });
    await server.call(tokens.adminToken, { method: 'GET', path: '/api/v1/no-such-thing' });
    await server.call(tokens.adminToken, { method: 'GET', path: `/api/v1/tasks/${'9'.repeat(600)}` });
    expect(errors('UNAUTHENTICATED', 401)).toBe(1);
    expect(errors('VALIDATION_FAILED', 400)).toBe(1);
    expect(errors('VALIDATION_FAILED', 414)).toBe(1); // the router's own: a path parameter over 512 characters
    expect(errors('TASK_NOT_FOUND', 404)).toBe(1);
    expect(errors('NOT_FOUND', 404)).toBe(1);
  });

  it('times requests by route pattern, method and status class', async () => {
    requests.length = 0;
    await server.call(tokens.adminToken, { method: 'GET', path: '/api/v1/tasks/777' });
    await server.call(undefined, { method: 'GET', path: '/api/v1/health' });
    expect(requests).toEqual([
      { route: '/api/v1/tasks/:id', method: 'GET', status: '4xx' },
      { route: '/api/v1/health', method: 'GET', status: '2xx' },
    ]);
  });
});
