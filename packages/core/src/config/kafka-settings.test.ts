import { ConfigError } from '../errors';
import { compileConfig } from './compile';
import type { HeraldOptions } from './options';
import { checkKafkaBrokers, checkKafkaTopicPrefix, KAFKA_LIMITS, kafkaMs } from './kafka-settings';

const PRODUCTION = {
  profile: 'production',
  mysql: { url: 'mysql://herald@db:3306' },
  zookeeper: { connectionString: 'zk1:2181' },
  kafka: { brokers: ['k1:9092'] },
  curve: { keysDir: '/etc/herald/keys' },
  topology: {
    schedulers: [{ id: 'scheduler-1', endpoint: 'tcp://10.0.0.1:7101' }],
    dispatchers: [{ id: 'dispatcher-1', endpoint: 'tcp://10.0.0.2:7201' }],
    executors: [{ id: 'executor-1', endpoint: 'tcp://10.0.0.3:7301' }],
    presence: [{ id: 'presence-1', bitmapFile: '/dev/shm/herald-online.bitmap', executors: ['executor-1'] }],
  },
};

function refusedByCompile(kafka: Record<string, unknown>): string | undefined {
  try {
    compileConfig({ ...PRODUCTION, kafka: { ...PRODUCTION.kafka, ...kafka } } as HeraldOptions);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).details.setting as string;
  }
}

describe('kafka.* settings', () => {
  it('takes a non-empty list of host:port brokers', () => {
    expect(checkKafkaBrokers(['k1:9092', 'k2:9093'])).toEqual(['k1:9092', 'k2:9093']);
    for (const bad of [[], ['k1'], ['k1:9092', 'k 2:9092'], 'k1:9092'])
      expect(() => checkKafkaBrokers(bad)).toThrow(ConfigError);
  });

  it('takes a topic prefix of letters, digits, _ . -, at most 64, or none', () => {
    for (const good of ['', 'prod.', 'a_b-c.d', 'x'.repeat(64)]) expect(checkKafkaTopicPrefix(good)).toBe(good);
    for (const bad of ['bad prefix', 'x'.repeat(65), 'prod/'])
      expect(() => checkKafkaTopicPrefix(bad)).toThrow(ConfigError);
  });

  it('bounds connectTimeoutMs by KAFKA_LIMITS', () => {
    const { min, max } = KAFKA_LIMITS.connectTimeoutMs;
    expect(kafkaMs('connectTimeoutMs', undefined)).toBe(10_000);
    for (const bad of [min - 1, max + 1, 2.5])
      expect(() => kafkaMs('connectTimeoutMs', bad)).toThrow('kafka.connectTimeoutMs');
  });

  it('is what compileConfig checks in the production profile', () => {
    expect(refusedByCompile({})).toBeUndefined();
    expect(refusedByCompile({ brokers: undefined })).toBe('kafka.brokers');
    expect(refusedByCompile({ brokers: ['k1'] })).toBe('kafka.brokers');
    expect(refusedByCompile({ topicPrefix: 'x'.repeat(65) })).toBe('kafka.topicPrefix');
    expect(refusedByCompile({ connectTimeoutMs: KAFKA_LIMITS.connectTimeoutMs.min - 1 })).toBe(
      'kafka.connectTimeoutMs',
    );
  });
});
