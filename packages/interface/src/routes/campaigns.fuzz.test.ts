/**
 * Fuzz tests (fast-check) of the campaign routes over real HTTP: whatever an
 * operator types as cron expression and time zone (the console previews as
 * the user types), the preview and the create route answer 200/201 or a 4xx
 * whose body has a stable code (VALIDATION_FAILED naming cron or timeZone
 * for schedule errors), never a 500. docs/fuzzing.md.
 */
import type { AddressInfo } from 'node:net';
import * as fc from 'fast-check';
import { ListRepository } from '@herald/audience';
import { compileConfig } from '@herald/core/config';
import { ErrorCodes } from '@herald/core';
import { noopLogger, systemClock } from '@herald/core/ports';
import { LevelCampaignStore, LevelTaskStore } from '@herald/store-level';
import { makeTempDir, type TempDir } from '@herald/testing';
import type { PushChannel } from '@herald/transport';
import type { FastifyInstance } from 'fastify';
import { openTestAccess, type TestAccess } from '../access/test-access.test-util';
import { createApiServer } from '../server';

const RUNS = Math.min(Number(process.env.HERALD_FUZZ_RUNS) || 150, 500);
const CODES = new Set<string>(Object.values(ErrorCodes));
let dir: TempDir;
let tasks: LevelTaskStore;
let campaigns: LevelCampaignStore;
let tokens: TestAccess;
let app: FastifyInstance;
let base: string;

beforeAll(async () => {
  dir = await makeTempDir('herald-interface-campaigns-fuzz-');
  tasks = await LevelTaskStore.open(`${dir.path}/tasks`);
  campaigns = await LevelCampaignStore.open(`${dir.path}/campaigns`);
  tokens = await openTestAccess();
  await tasks.putList({
    id: 'l_acme',
    accountId: 'acme',
    count: 10,
    checksum: 1,
    sorted: true,
    unique: true,
    bytes: 80,
    createdAt: 0,
  });
  app = createApiServer({
    config: compileConfig(),
    store: tasks,
    access: tokens.access,
    campaigns,
    lists: new ListRepository(`${dir.path}/lists`),
    toScheduler: { send: async () => undefined, close: () => undefined } as unknown as PushChannel,
    clock: systemClock,
    logger: noopLogger,
    blacklistIds: { global: 'b_global', forAccount: (accountId) => `b_${accountId}` },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await app.close();
  await tokens.close();
  await campaigns.close();
  await tasks.close();
  await dir.remove();
});

const cronText = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc
    .array(
      fc.oneof(
        fc.integer({ min: -5, max: 99 }).map(String),
        fc.constantFrom('*', '?', '/', '-', ',', ' ', 'mon', 'JAN', 'L', 'W', '#', '@daily', '%', '\u0000', 'é'),
      ),
      { maxLength: 16 },
    )
    .map((parts) => parts.join('')),
);
const zoneText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('UTC', 'Europe/Berlin', 'america/new_york', 'Mars/Olympus', '+01:00', '../../etc', ''),
);

async function expectTyped(response: Response, fields: string[]): Promise<void> {
  const body = (await response.json()) as { error?: { code: string; details?: { field?: string } } };
  expect(response.status).toBeLessThan(500);
  if (response.status >= 400) {
    expect(CODES.has(body.error!.code)).toBe(true);
    if (body.error!.code === 'VALIDATION_FAILED' && body.error!.details?.field !== undefined)
      expect(fields).toContain(body.error!.details.field);
  }
}

describe('campaign routes (fuzz)', () => {
  it('preview: any cron and time zone give five fire times or a typed 400', async () => {
    await fc.assert(
      fc.asyncProperty(cronText, zoneText, async (cron, timeZone) => {
        const response = await fetch(
          `${base}/api/v1/campaigns/preview?cron=${encodeURIComponent(cron)}&timeZone=${encodeURIComponent(timeZone)}`,
          { headers: { authorization: `Bearer ${tokens.adminToken}` } },
        );
        await expectTyped(response, ['cron', 'timeZone']);
      }),
      { numRuns: RUNS, timeout: 5000 },
    );
  });

  it('create: any cron and time zone give a campaign or a typed 4xx', async () => {
    await fc.assert(
      fc.asyncProperty(cronText, zoneText, async (cron, timeZone) => {
        const response = await fetch(`${base}/api/v1/campaigns`, {
          method: 'POST',
          headers: { authorization: `Bearer ${tokens.adminToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            accountId: 'acme',
            name: 'fuzz',
            cron,
            timeZone,
            template: { listId: 'l_acme', content: { body: 'x' } },
          }),
        });
        await expectTyped(response, ['cron', 'timeZone']);
      }),
      { numRuns: RUNS, timeout: 5000 },
    );
  });
});
