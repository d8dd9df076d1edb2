import { compileConfig } from './compile';

describe('delivery configuration', () => {
  it('defaults to the file sink', () => {
    expect(compileConfig({}).delivery).toEqual({ kind: 'file' });
  });

  it('compiles a webhook with its defaults, and with every setting given', () => {
    expect(
      compileConfig({ delivery: { kind: 'webhook', webhook: { url: 'https://push.example/batches' } } }).delivery,
    ).toEqual({
      kind: 'webhook',
      webhook: {
        url: 'https://push.example/batches',
        timeoutMs: 10_000,
        maxAttempts: 5,
        retryDelayMs: 200,
        headers: {},
      },
    });
    const full = {
      url: 'http://10.0.0.7:9000/in',
      timeoutMs: 500,
      maxAttempts: 1,
      retryDelayMs: 0,
      headers: { authorization: 'Bearer x' },
    };
    expect(compileConfig({ delivery: { kind: 'webhook', webhook: full } }).delivery).toEqual({
      kind: 'webhook',
      webhook: full,
    });
  });

  it.each([
    [{ kind: 'carrier-pigeon' }, 'delivery.kind'],
    [{ kind: 'webhook' }, 'delivery.webhook.url'],
    [{ kind: 'webhook', webhook: { url: 'ftp://push.example/' } }, 'delivery.webhook.url'],
    [{ kind: 'webhook', webhook: { url: 'not a url' } }, 'delivery.webhook.url'],
    [{ kind: 'webhook', webhook: { url: 'http://a/', timeoutMs: 5 } }, 'delivery.webhook.timeoutMs'],
    [{ kind: 'webhook', webhook: { url: 'http://a/', maxAttempts: 0 } }, 'delivery.webhook.maxAttempts'],
    [
      { kind: 'webhook', webhook: { url: 'http://a/', headers: { 'bad header': 'x' } } },
      'delivery.webhook.headers.bad header',
    ],
    [
      { kind: 'webhook', webhook: { url: 'http://a/', headers: { 'x-a': 'line\r\nbreak' } } },
      'delivery.webhook.headers.x-a',
    ],
    [{ kind: 'webhook', webhook: { url: 'http://a/', retries: 3 } }, 'delivery.webhook.retries'],
    [{ kind: 'file', webhook: { url: 'http://a/' } }, 'delivery.webhook'],
    [[], 'delivery'],
  ])('refuses %j naming %s', (delivery, setting) => {
    expect(() => compileConfig({ delivery } as never)).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID', setting }),
    );
  });
});
