import { mkdir, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { makeTempDir, type TempDir } from '@herald/testing';
import { consoleRoutes } from './console';

/** GET over a real socket (fastify's inject pulls in an ESM-only module jest cannot load). */
async function get(app: FastifyInstance, url: string) {
  const address = app.server.address() as AddressInfo;
  const response = await fetch(`http://127.0.0.1:${address.port}${url}`, { redirect: 'manual' });
  return { statusCode: response.status, headers: Object.fromEntries(response.headers), body: await response.text() };
}

describe('console routes', () => {
  let dir: TempDir;
  let app: FastifyInstance;

  beforeAll(async () => {
    dir = await makeTempDir('herald-console-');
    await mkdir(join(dir.path, 'assets'));
    await writeFile(join(dir.path, 'index.html'), '<!doctype html><title>console</title>');
    await writeFile(join(dir.path, 'assets', 'app-1234.js'), 'console.log(1)');
    app = Fastify();
    consoleRoutes(app, dir.path);
    await app.listen({ host: '127.0.0.1', port: 0 });
  });

  afterAll(async () => {
    await app?.close();
    await dir?.remove();
  });

  it('serves the app at /console/ and sends / and /console there', async () => {
    const index = await get(app, '/console/');
    expect(index.statusCode).toBe(200);
    expect(index.body).toContain('<title>console</title>');
    expect(index.headers['cache-control']).toBe('no-cache');
    for (const url of ['/', '/console']) {
      const moved = await get(app, url);
      expect([moved.statusCode, moved.headers.location]).toEqual([302, '/console/']);
    }
  });

  it('serves hashed assets with a long cache life', async () => {
    const asset = await get(app, '/console/assets/app-1234.js');
    expect(asset.statusCode).toBe(200);
    expect(asset.body).toBe('console.log(1)');
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('answers any other page address with the app, so reloads and shared links work', async () => {
    const page = await get(app, '/console/tasks/42?x=1');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<title>console</title>');
  });

  it('says how to build the console when it is not built', async () => {
    const bare = Fastify();
    consoleRoutes(bare, null);
    await bare.listen({ host: '127.0.0.1', port: 0 });
    const answer = await get(bare, '/console/');
    expect(answer.statusCode).toBe(503);
    expect(answer.body).toContain('npm run build');
    await bare.close();
  });
});
