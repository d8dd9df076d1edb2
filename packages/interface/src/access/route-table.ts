import type { FastifyInstance } from 'fastify';

export interface RouteEntry {
  method: string;
  /** The route pattern, e.g. '/api/v1/tasks/:id'. */
  url: string;
}

const tables = new WeakMap<FastifyInstance, RouteEntry[]>();

/**
 * Records every route registered on `app` from now on (nested plugin scopes
 * included). Called first in createApiServer, so the table is complete: the
 * authorization tests walk it, and a route added without an entry in their
 * matrix fails them.
 */
export function recordRoutes(app: FastifyInstance): void {
  const routes: RouteEntry[] = [];
  tables.set(app, routes);
  app.addHook('onRoute', (route) => {
    for (const method of Array.isArray(route.method) ? route.method : [route.method])
      routes.push({ method: String(method), url: route.url });
  });
}

/** The routes recorded on `app` (complete once it is ready), HEAD routes Fastify adds for each GET included. */
export function routesOf(app: FastifyInstance): readonly RouteEntry[] {
  return tables.get(app) ?? [];
}
