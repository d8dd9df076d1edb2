import { join } from 'node:path';
import { ListRepository } from '@herald/audience';
import { compileConfig, type HeraldOptions } from '@herald/core/config';
import { encodeRecipientList } from '@herald/core/recipient-list';
import {
  noopLogger,
  systemClock,
  type AccessStore,
  type CampaignStore,
  type Clock,
  type DeliveryRecordLog,
  type Logger,
  type Meter,
} from '@herald/core/ports';
import {
  LevelAccountStore,
  LevelDeviceRegistry,
  LevelAttributeIndex,
  LevelCampaignStore,
  LevelFollowerStore,
  LevelTaskStore,
} from '@herald/store-level';
import { makeTempDir, type TempDir } from '@herald/testing';
import type { Message, PushChannel } from '@herald/transport';
import type { FastifyInstance } from 'fastify';
import { ValidationError } from '@herald/core';
import type { ChannelControl, ChannelLimitsView } from '../api-deps';
import type { AudienceSourceDeps } from '../audience-jobs';
import { createApiServer } from '../server';

/** One answer, its body parsed when it is JSON. */
export interface Answer {
  status: number;
  headers: Headers;
  body: { error?: { code: string; message: string; details?: Record<string, unknown> } } & Record<string, unknown>;
}

export interface Req {
  method: string;
  path: string;
  /** An object goes as JSON; bytes as application/octet-stream. */
  body?: unknown;
  /** Extra request headers (a Cookie, the console's header). */
  headers?: Record<string, string>;
}

/**
 * An API server on real stores (LevelTaskStore, a ListRepository, a
 * LevelAccountStore for the B-side quotas, the given AccessStore) in a temp dir, listening on 127.0.0.1 (fastify's inject needs
 * an ESM-only module jest cannot load). The scheduler channel keeps what it
 * is sent.
 */
export interface TestServer {
  app: FastifyInstance;
  base: string;
  store: LevelTaskStore;
  accounts: LevelAccountStore;
  /** Where the server's lists are (a filtered list a test writes goes here). */
  lists: ListRepository;
  sent: Message[];
  call(token: string | undefined, req: Req): Promise<Answer>;
  close(): Promise<void>;
}

export async function startTestServer(options: {
  access: AccessStore;
  campaigns?: CampaignStore;
  audiences?: AudienceSourceDeps;
  deliveryRecords?: DeliveryRecordLog;
  config?: HeraldOptions;
  clock?: Clock;
  logger?: Logger;
  meter?: Meter;
}): Promise<TestServer> {
  const dir: TempDir = await makeTempDir('herald-interface-server-');
  const store = await LevelTaskStore.open(join(dir.path, 'tasks'));
  const accounts = await LevelAccountStore.open(join(dir.path, 'accounts'));
  const devices = await LevelDeviceRegistry.open(join(dir.path, 'devices'));
  const lists = new ListRepository(join(dir.path, 'lists'));
  const sent: Message[] = [];
  const toScheduler: PushChannel = {
    async send(message) {
      sent.push(message);
    },
    close() {},
  };
  const app = createApiServer({
    config: compileConfig({
      dataDir: dir.path,
      uinSpaceBits: 20,
      auth: { rateLimit: { perSecond: 0 } },
      ...options.config,
    }),
    store,
    access: options.access,
    lists,
    toScheduler,
    clock: options.clock ?? systemClock,
    logger: options.logger ?? noopLogger,
    ...(options.meter ? { meter: options.meter } : {}),
    ...(options.campaigns ? { campaigns: options.campaigns } : {}),
    ...(options.audiences ? { audiences: options.audiences } : {}),
    ...(options.deliveryRecords ? { deliveryRecords: options.deliveryRecords } : {}),
    accounts,
    devices,
    blacklistIds: { global: 'b_global', forAccount: (accountId) => `b_${accountId}` },
    metrics: async () => ({ contentType: 'text/plain; version=0.0.4', body: 'herald_up 1\n' }),
    channels: fakeChannels(),
  });
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    app,
    base,
    store,
    accounts,
    lists,
    sent,
    async call(token, req) {
      const headers: Record<string, string> = {
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        ...req.headers,
      };
      let body: RequestInit['body'];
      if (req.body instanceof Uint8Array) {
        headers['content-type'] = 'application/octet-stream';
        body = req.body as RequestInit['body'];
      } else if (req.body !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(req.body);
      }
      const response = await fetch(base + req.path, { method: req.method, headers, body, redirect: 'manual' });
      const text = await response.text();
      let parsed: Answer['body'];
      try {
        parsed = JSON.parse(text) as Answer['body'];
      } catch {
        parsed = { text };
      }
      return { status: response.status, headers: response.headers, body: parsed };
    },
    async close() {
      await app.close();
      await store.close();
      await accounts.close();
      await devices.close();
      await dir.remove();
    },
  };
}

/** A test server with every optional part of the API, and the stores behind those parts. */
export interface FullTestServer extends TestServer {
  campaigns: LevelCampaignStore;
  followers: LevelFollowerStore;
  attributes: LevelAttributeIndex;
}

/**
 * A test server with every optional part of the API (campaigns, audiences;
 * accounts always), so every route is registered: for the tests that walk
 * the whole OpenAPI document. close() closes its stores too.
 */
export async function startFullTestServer(access: AccessStore): Promise<FullTestServer> {
  const dir = await makeTempDir('herald-interface-full-');
  const campaigns = await LevelCampaignStore.open(join(dir.path, 'campaigns'));
  const followers = await LevelFollowerStore.open(join(dir.path, 'followers'));
  const attributes = await LevelAttributeIndex.open(join(dir.path, 'attributes'));
  const server = await startTestServer({ access, campaigns, audiences: { followers, attributes } });
  return {
    ...server,
    campaigns,
    followers,
    attributes,
    async close() {
      await server.close();
      await campaigns.close();
      await followers.close();
      await attributes.close();
      await dir.remove();
    },
  };
}

/** A small valid binary recipient list. */
export const LIST_BYTES = encodeRecipientList([1, 2, 3]);

/** One paced channel, `webhook`, whose limits change as asked (the embedded profile's are its PacedDeliveryGateway). */
export function fakeChannels(): ChannelControl {
  const webhook: ChannelLimitsView = { channel: 'webhook', minRate: 100, maxRate: 50_000, rate: 50_000, senders: 1 };
  return {
    list: () => [{ ...webhook }],
    setLimits(channel, limits) {
      if (channel !== 'webhook') return undefined;
      const next = { ...webhook, ...limits };
      if (next.minRate > next.maxRate)
        throw new ValidationError('channel pacing minRate must be at most maxRate', { field: 'minRate' });
      Object.assign(webhook, next, { rate: Math.min(Math.max(webhook.rate, next.minRate), next.maxRate) });
      return { ...webhook };
    },
  };
}
