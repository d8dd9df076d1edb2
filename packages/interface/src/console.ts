import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/** Where the console is served; the built app's asset paths start with it (packages/console/vite.config.mts `base`). */
export const CONSOLE_PATH = '/console/';

/** The built console (packages/console/dist), or undefined when it is not installed or not built. */
export function findConsoleDir(): string | undefined {
  try {
    const dir = join(dirname(require.resolve('@herald/console/package.json')), 'dist');
    return existsSync(join(dir, 'index.html')) ? dir : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The operator console (docs/operator-guide.md): static files under
 * /console/, and index.html for any other path below it, so a reloaded or
 * shared page address (/console/tasks/42) opens that page. `/` redirects
 * there. `dir` null: the console is not built, and /console/ says how to
 * build it. The files are public: the console signs in with an API token and
 * every API call it makes carries that token.
 */
export function consoleRoutes(app: FastifyInstance, dir: string | null = findConsoleDir() ?? null): void {
  app.get('/', async (_request, reply) => reply.redirect(CONSOLE_PATH));
  app.get(CONSOLE_PATH.slice(0, -1), async (_request, reply) => reply.redirect(CONSOLE_PATH));
  if (dir === null) {
    app.get(`${CONSOLE_PATH}*`, async (_request, reply) =>
      reply
        .code(503)
        .type('text/plain')
        .send('The Herald console is not built: run `npm run build` (it builds packages/console), then restart.\n'),
    );
    return;
  }
  // wildcard: false registers one route per built file; the wildcard below answers every other path with the app.
  void app.register(fastifyStatic, {
    root: dir,
    prefix: CONSOLE_PATH,
    wildcard: false,
    index: ['index.html'],
    cacheControl: false,
    // Built assets carry a content hash in their name: cache them for good; index.html is always revalidated.
    setHeaders: (response, path) => {
      response.setHeader(
        'cache-control',
        /[\\/]assets[\\/]/.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache',
      );
    },
  });
  app.get(`${CONSOLE_PATH}*`, async (_request, reply) =>
    reply.header('cache-control', 'no-cache').sendFile('index.html', dir),
  );
}
