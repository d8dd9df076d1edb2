import { compileConfig, KAFKA_LIMITS, type HeraldOptions } from '@herald/core/config';
import { ConfigError } from '@herald/core';
import { compileOptions } from './options';
import { compileKafkaSecurity } from './security';

/** The setting the event bus's own options name for these values, or undefined when it accepts them. */
function refused(options: Record<string, unknown>): string | undefined {
  try {
    compileOptions({ brokers: ['k1:9092'], clientId: 'herald', ...options } as never);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).details.setting as string;
  }
}

describe('compileOptions (kafka.* settings it shares with compileConfig)', () => {
  it('takes the bounds compileConfig takes (core KAFKA_LIMITS), not looser ones', () => {
    expect(refused({ connectTimeoutMs: KAFKA_LIMITS.connectTimeoutMs.min })).toBeUndefined();
    expect(refused({ connectTimeoutMs: KAFKA_LIMITS.connectTimeoutMs.min - 1 })).toBe('kafka.connectTimeoutMs');
  });

  it('checks brokers and the topic prefix as compileConfig does', () => {
    expect(refused({ topicPrefix: 'x'.repeat(64) })).toBeUndefined();
    expect(refused({ topicPrefix: 'x'.repeat(65) })).toBe('kafka.topicPrefix');
    expect(refused({ brokers: ['k1'] })).toBe('kafka.brokers');
  });
});

/** The error compileConfig gives for these kafka settings in an otherwise valid production config. */
function compileConfigError(kafka: Record<string, unknown>): ConfigError {
  const options = {
    profile: 'production',
    mysql: { url: 'mysql://herald@db:3306' },
    zookeeper: { connectionString: 'zk1:2181' },
    kafka: { brokers: ['k1:9092'], ...kafka },
    curve: { keysDir: '/etc/herald/keys' },
    topology: {
      schedulers: [{ id: 'scheduler-1', endpoint: 'tcp://10.0.0.1:7101' }],
      dispatchers: [{ id: 'dispatcher-1', endpoint: 'tcp://10.0.0.2:7201' }],
      executors: [{ id: 'executor-1', endpoint: 'tcp://10.0.0.3:7301' }],
      presence: [{ id: 'presence-1', bitmapFile: '/dev/shm/b', executors: ['executor-1'] }],
    },
  };
  try {
    compileConfig(options as HeraldOptions);
  } catch (error) {
    return error as ConfigError;
  }
  throw new Error('compileConfig accepted the settings');
}

function securityError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    return error as ConfigError;
  }
  throw new Error('compileKafkaSecurity accepted the settings');
}

describe('compileKafkaSecurity (kafka.sasl and kafka.tls it shares with compileConfig)', () => {
  it('refuses what compileConfig refuses, with the same setting and message', () => {
    const pairs: [Record<string, unknown>, () => unknown][] = [
      [
        { sasl: { mechanism: 'gssapi', username: 'u', password: 'p' } },
        () => compileKafkaSecurity({ mechanism: 'gssapi', username: 'u', password: 'p' }, undefined),
      ],
      [
        { sasl: { mechanism: 'PLAIN', username: 'u', password: 'p' } },
        () => compileKafkaSecurity({ mechanism: 'PLAIN', username: 'u', password: 'p' }, undefined),
      ],
      [{ tls: { certFile: '/etc/herald/kafka.crt' } }, () => compileKafkaSecurity(undefined, { cert: 'PEM' })],
      [{ tls: { keyFile: '/etc/herald/kafka.key' } }, () => compileKafkaSecurity(undefined, { key: 'PEM' })],
    ];
    for (const [settings, run] of pairs) {
      const expected = compileConfigError(settings);
      const actual = securityError(run);
      expect(actual).toBeInstanceOf(ConfigError);
      expect(actual.details.setting).toBe(expected.details.setting);
      expect(actual.message).toBe(expected.message);
    }
  });
});
