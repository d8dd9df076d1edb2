import { ConfigError, KAFKA_LIMITS } from '@herald/core';
import { compileOptions } from './options';

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
