import { isPublicRoute, isSessionRoute } from './public-routes';

describe('isPublicRoute', () => {
  it('lets reads of health, docs, the console and metrics through', () => {
    for (const url of [
      '/api/v1/health',
      '/api/docs',
      '/api/docs/json',
      '/api/docs/static/index.html',
      '/',
      '/console',
      '/console/',
      '/console/*',
      '/console/assets/app-1a2b.js',
      '/metrics',
    ]) {
      expect(isPublicRoute('GET', url)).toBe(true);
      expect(isPublicRoute('HEAD', url)).toBe(true);
    }
  });

  it('never lets a write through, even to a public path', () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])
      for (const url of ['/api/v1/health', '/console/*', '/']) expect(isPublicRoute(method, url)).toBe(false);
  });

  it('matches route patterns whole: look-alike paths need a token', () => {
    for (const url of [
      '/api/v1/healthz',
      '/api/v1/health/x',
      '/consoles',
      '/api/docsx',
      '/metrics/x',
      '/api/v1/tasks',
      '/api/v1/me',
    ])
      expect(isPublicRoute('GET', url)).toBe(false);
  });

  it('passes a request that matched no route: the not-found handler answers it', () => {
    expect(isPublicRoute('POST', undefined)).toBe(true);
  });
});

describe('isSessionRoute', () => {
  it('is POST and DELETE /api/v1/session only, by the whole pattern', () => {
    expect(isSessionRoute('POST', '/api/v1/session')).toBe(true);
    expect(isSessionRoute('DELETE', '/api/v1/session')).toBe(true);
    for (const method of ['GET', 'HEAD', 'PUT', 'PATCH']) expect(isSessionRoute(method, '/api/v1/session')).toBe(false);
    for (const url of ['/api/v1/sessions', '/api/v1/session/x', '/api/v1/me', undefined])
      expect(isSessionRoute('POST', url)).toBe(false);
  });
});
