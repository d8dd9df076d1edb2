import { ConfigError } from '@herald/core';
import { noopLogger } from '@herald/core/ports';
import { kafkaClientConfig } from './client-config';
import { compileOptions, type KafkaEventBusOptions } from './options';

/**
 * librdkafka's mock cluster (the test broker) cannot enforce SASL or TLS, so
 * these tests check what kafkajs is given: the settings must reach its client
 * config exactly, and a misconfiguration must fail before any connection.
 */
const base: KafkaEventBusOptions = { brokers: ['k1:9092'], clientId: 'herald-test', logger: noopLogger };
const config = (options: Partial<KafkaEventBusOptions>) =>
  kafkaClientConfig(compileOptions({ ...base, ...options }), () => undefined);

function configError(options: Partial<KafkaEventBusOptions>): ConfigError {
  try {
    compileOptions({ ...base, ...options });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

const PASSWORD = 'pa55-w0rd-never-shown';

describe('Kafka SASL and TLS reach kafkajs', () => {
  it('passes no sasl and no ssl by default (plaintext, as before)', () => {
    const c = config({});
    expect(c).not.toHaveProperty('sasl');
    expect(c).not.toHaveProperty('ssl');
  });

  it.each(['scram-sha-512', 'SCRAM-SHA-256', 'plain'])(
    'passes SASL %s as kafkajs names it, with the username and password',
    (mechanism) => {
      const c = config({ sasl: { mechanism, username: 'herald-executor', password: PASSWORD }, tls: {} });
      expect(c.sasl).toEqual({ mechanism: mechanism.toLowerCase(), username: 'herald-executor', password: PASSWORD });
    },
  );

  it('passes the CA, the client certificate and key, and rejectUnauthorized to ssl exactly', () => {
    const c = config({
      tls: { ca: 'CA PEM', cert: Buffer.from('CERT PEM'), key: 'KEY PEM', rejectUnauthorized: false },
    });
    expect(c.ssl).toEqual({ ca: ['CA PEM'], cert: Buffer.from('CERT PEM'), key: 'KEY PEM', rejectUnauthorized: false });
  });

  it("verifies the brokers by default once TLS is on, against Node's CAs when none is given", () => {
    expect(config({ tls: {} }).ssl).toEqual({ rejectUnauthorized: true });
  });

  it('keeps the rest of the client config as it was', () => {
    const c = config({ sasl: { mechanism: 'scram-sha-512', username: 'u', password: PASSWORD } });
    expect(c).toMatchObject({
      clientId: 'herald-test',
      brokers: ['k1:9092'],
      connectionTimeout: 1000,
      requestTimeout: 30_000,
    });
  });
});

describe('Kafka SASL and TLS misconfiguration fails at start, naming the setting', () => {
  it.each([
    [
      'an unsupported mechanism',
      { sasl: { mechanism: 'oauthbearer', username: 'u', password: PASSWORD } },
      'kafka.sasl.mechanism',
      /must be one of scram-sha-512, scram-sha-256, plain \(got "oauthbearer"\)/,
    ],
    [
      'a password without a username',
      { sasl: { mechanism: 'scram-sha-512', username: '', password: PASSWORD } },
      'kafka.sasl.username',
      /is required/,
    ],
    [
      'a username without a password',
      { sasl: { mechanism: 'scram-sha-512', username: 'u', password: '' } },
      'kafka.sasl.password',
      /is required/,
    ],
    [
      'PLAIN without TLS',
      { sasl: { mechanism: 'plain', username: 'u', password: PASSWORD } },
      'kafka.sasl.mechanism',
      /unencrypted/,
    ],
    [
      'a client certificate without its key',
      { tls: { cert: 'CERT' } },
      'kafka.tls.keyFile',
      /is required with kafka.tls.certFile/,
    ],
    [
      'a key without its certificate',
      { tls: { key: 'KEY' } },
      'kafka.tls.certFile',
      /is required with kafka.tls.keyFile/,
    ],
  ] as const)('%s', (_, options, setting, message) => {
    const error = configError(options as Partial<KafkaEventBusOptions>);
    expect(error.setting).toBe(setting);
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain('\n');
    expect(error.message).not.toContain(PASSWORD);
  });
});
