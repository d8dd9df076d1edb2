import { DEFAULTS } from '@herald/core/config';
import { noopLogger, type DeliveryGateway } from '@herald/core/ports';
import { channelControlOf, pacedChannel } from '@herald/executor';
import { hashManagementToken, startManagementServer, type ManagementServer } from '@herald/production';

/** A channel that accepts everything: only its pacing's limits matter here. */
const accepting: DeliveryGateway = { deliver: async () => ({ rejected: [] }), close: async () => undefined };

/**
 * A production executor's channel limits at run time, on its management
 * endpoint (docs/delivery.md, "Limits at run time"): read, changed, and bad
 * changes refused naming the field, the channel as it was.
 */
describe('management endpoint: channel limits', () => {
  let server: ManagementServer;
  const TOKEN = 'hmt_test-management-token';
  const gateway = pacedChannel('webhook', accepting, {
    maxAttempts: 3,
    retryDelayMs: 10,
    pacing: { ...DEFAULTS.delivery.webhook.pacing, minRate: 100, maxRate: 50_000, initialRate: 50_000 },
  });

  beforeAll(async () => {
    server = await startManagementServer(
      {
        id: 'executor-1',
        tier: 'executor',
        status: () => ({}),
        drain: async () => undefined,
        metrics: async () => ({ contentType: 'text/plain', body: '' }),
        channels: channelControlOf(gateway),
      },
      { address: '127.0.0.1:0', faults: false, tokenHash: hashManagementToken(TOKEN), logger: noopLogger },
    );
  });
  afterAll(async () => {
    await server.close();
    await gateway.close();
  });

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`http://${server.address}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${TOKEN}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('lists the channel and changes its limits now', async () => {
    expect(await call('GET', '/channels')).toEqual({
      status: 200,
      body: { channels: [{ channel: 'webhook', minRate: 100, maxRate: 50_000, rate: 50_000, senders: 1 }] },
    });
    expect(await call('POST', '/channels/limits', { channel: 'webhook', maxRate: 20_000 })).toEqual({
      status: 200,
      body: { channel: 'webhook', minRate: 100, maxRate: 20_000, rate: 20_000, senders: 1 },
    });
  });

  it.each([
    [{ channel: 'webhook', maxRate: 0 }, 400, 'maxRate'],
    [{ channel: 'webhook', maxRate: 1.5 }, 400, 'maxRate'],
    [{ channel: 'webhook', rate: 5 }, 400, 'rate'],
    [{ channel: 'webhook' }, 400, 'maxRate'],
    [{ maxRate: 5 }, 400, 'channel'],
    [{ channel: 'webhook', minRate: 90_000 }, 400, 'minRate'],
  ])('refuses %j naming the field, and changes nothing', async (body, status, field) => {
    const before = (await call('GET', '/channels')).body;
    const answer = await call('POST', '/channels/limits', body);
    expect([answer.status, answer.body['code'], (answer.body['details'] as { field: string }).field]).toEqual([
      status,
      'VALIDATION_FAILED',
      field,
    ]);
    expect((await call('GET', '/channels')).body).toEqual(before);
  });

  it('answers 404 for a channel this process does not run', async () => {
    expect((await call('POST', '/channels/limits', { channel: 'kafka', maxRate: 5 })).status).toBe(404);
  });
});
