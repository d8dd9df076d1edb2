import { compileConfig } from './compile';
import { DEFAULTS } from './defaults';

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
        pacing: DEFAULTS.delivery.webhook.pacing,
      },
    });
    const full = {
      url: 'http://10.0.0.7:9000/in',
      timeoutMs: 500,
      maxAttempts: 1,
      retryDelayMs: 0,
      headers: { authorization: 'Bearer x' },
      pacing: {
        initialRate: 1000,
        minRate: 1,
        maxRate: 1000,
        increasePerSecond: 0,
        decreaseFactor: 0.95,
        burstMs: 600_000,
        cutSpacingMs: 600_000,
        throttleDelayMs: 600_000,
        latencyFloorMs: 600_000,
        latencyRiseFactor: 100,
        breakerOpenMs: 3_600_000,
        maxHoldMs: 3_600_000,
      },
    };
    expect(compileConfig({ delivery: { kind: 'webhook', webhook: full } }).delivery).toEqual({
      kind: 'webhook',
      webhook: full,
    });
  });

  it('starts a channel given only its limits at the default rate inside them', () => {
    const config = compileConfig({
      delivery: { kind: 'webhook', webhook: { url: 'http://a/', pacing: { maxRate: 2000 } } },
    }).delivery;
    expect(config.kind === 'webhook' && config.webhook.pacing).toMatchObject({ initialRate: 2000, maxRate: 2000 });
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
    [{ kind: 'webhook', webhook: { url: 'http://a/', pacing: [] } }, 'delivery.webhook.pacing'],
    [{ kind: 'webhook', webhook: { url: 'http://a/', pacing: { rate: 5 } } }, 'delivery.webhook.pacing.rate'],
    [{ kind: 'webhook', webhook: { url: 'http://a/', pacing: { maxRate: 0 } } }, 'delivery.webhook.pacing.maxRate'],
    [
      { kind: 'webhook', webhook: { url: 'http://a/', pacing: { minRate: 500, maxRate: 100 } } },
      'delivery.webhook.pacing.minRate',
    ],
    [
      { kind: 'webhook', webhook: { url: 'http://a/', pacing: { initialRate: 50, minRate: 100 } } },
      'delivery.webhook.pacing.initialRate',
    ],
    [
      { kind: 'webhook', webhook: { url: 'http://a/', pacing: { decreaseFactor: 1 } } },
      'delivery.webhook.pacing.decreaseFactor',
    ],
    [
      { kind: 'webhook', webhook: { url: 'http://a/', pacing: { latencyRiseFactor: 1 } } },
      'delivery.webhook.pacing.latencyRiseFactor',
    ],
    [{ kind: 'webhook', webhook: { url: 'http://a/', pacing: { burstMs: 1.5 } } }, 'delivery.webhook.pacing.burstMs'],
    [[], 'delivery'],
  ])('refuses %j naming %s', (delivery, setting) => {
    expect(() => compileConfig({ delivery } as never)).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID', setting }),
    );
  });
});

describe('delivery configuration: a Kafka topic', () => {
  const kafka = { brokers: ['k1:9092', 'k2:9092'], topic: 'herald.deliveries' };

  it('compiles a topic with its defaults', () => {
    expect(compileConfig({ delivery: { kind: 'kafka', kafka } }).delivery).toEqual({
      kind: 'kafka',
      kafka: {
        ...kafka,
        ...DEFAULTS.delivery.kafka,
        sasl: null,
        tls: null,
        pacing: DEFAULTS.delivery.webhook.pacing,
      },
    });
  });

  it('takes SASL and TLS as kafka.sasl / kafka.tls are written', () => {
    const config = compileConfig({
      delivery: {
        kind: 'kafka',
        kafka: {
          ...kafka,
          sasl: { mechanism: 'SCRAM-SHA-512', username: 'herald', passwordFile: '/etc/herald/kafka.pw' },
          tls: { caFile: '/etc/herald/ca.pem' },
          idempotent: false,
          keyShiftBits: 16,
        },
      },
    }).delivery;
    expect(config.kind === 'kafka' && config.kafka).toMatchObject({
      sasl: { mechanism: 'scram-sha-512', username: 'herald', password: null, passwordFile: '/etc/herald/kafka.pw' },
      tls: { caFile: '/etc/herald/ca.pem', certFile: null, keyFile: null, rejectUnauthorized: true },
      idempotent: false,
      keyShiftBits: 16,
    });
  });

  it.each([
    [{ kind: 'kafka' }, 'delivery.kafka.brokers'],
    [{ kind: 'kafka', kafka: { topic: 't' } }, 'delivery.kafka.brokers'],
    [{ kind: 'kafka', kafka: { ...kafka, brokers: [] } }, 'delivery.kafka.brokers'],
    [{ kind: 'kafka', kafka: { ...kafka, brokers: ['no-port'] } }, 'delivery.kafka.brokers'],
    [{ kind: 'kafka', kafka: { brokers: kafka.brokers } }, 'delivery.kafka.topic'],
    [{ kind: 'kafka', kafka: { ...kafka, topic: 'bad topic' } }, 'delivery.kafka.topic'],
    [{ kind: 'kafka', kafka: { ...kafka, topic: '..' } }, 'delivery.kafka.topic'],
    [{ kind: 'kafka', kafka: { ...kafka, topic: 'x'.repeat(250) } }, 'delivery.kafka.topic'],
    [{ kind: 'kafka', kafka: { ...kafka, partitions: 3 } }, 'delivery.kafka.partitions'],
    [{ kind: 'kafka', kafka: { ...kafka, timeoutMs: 10 } }, 'delivery.kafka.timeoutMs'],
    [{ kind: 'kafka', kafka: { ...kafka, maxRecordBytes: 10 } }, 'delivery.kafka.maxRecordBytes'],
    [{ kind: 'kafka', kafka: { ...kafka, keyShiftBits: 33 } }, 'delivery.kafka.keyShiftBits'],
    [{ kind: 'kafka', kafka: { ...kafka, idempotent: 'yes' } }, 'delivery.kafka.idempotent'],
    [{ kind: 'kafka', kafka: { ...kafka, clientId: 'a b' } }, 'delivery.kafka.clientId'],
    [{ kind: 'kafka', kafka: { ...kafka, sasl: { mechanism: 'gssapi' } } }, 'delivery.kafka.sasl.mechanism'],
    [
      { kind: 'kafka', kafka: { ...kafka, sasl: { mechanism: 'plain', username: 'u', password: 'p' } } },
      'delivery.kafka.sasl.mechanism',
    ],
    [{ kind: 'kafka', kafka: { ...kafka, tls: { certFile: '/c.pem' } } }, 'delivery.kafka.tls.keyFile'],
    [{ kind: 'kafka', kafka: { ...kafka, pacing: { maxRate: 0 } } }, 'delivery.kafka.pacing.maxRate'],
    [{ kind: 'webhook', webhook: { url: 'http://a/' }, kafka }, 'delivery.kafka'],
    [{ kind: 'file', kafka }, 'delivery.kafka'],
    [{ kind: 'kafka', kafka: [] }, 'delivery.kafka'],
  ])('refuses %j naming %s', (delivery, setting) => {
    expect(() => compileConfig({ delivery } as never)).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID', setting }),
    );
  });
});
