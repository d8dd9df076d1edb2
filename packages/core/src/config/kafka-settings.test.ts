import { ConfigError } from '../errors';
import { compileConfig } from './compile';
import type { HeraldOptions } from './options';
import {
  checkKafkaBrokers,
  checkKafkaPartitions,
  checkKafkaReplicationFactor,
  checkKafkaTopicPrefix,
  KAFKA_LIMITS,
  KAFKA_MAX_REPLICATION,
  KAFKA_PARTITIONS,
  kafkaMs,
} from './kafka-settings';

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

  it('takes partitions within KAFKA_PARTITIONS, 3 when absent', () => {
    expect(checkKafkaPartitions(undefined)).toBe(3);
    expect(checkKafkaPartitions(KAFKA_PARTITIONS.max)).toBe(KAFKA_PARTITIONS.max);
    for (const bad of [0, -1, KAFKA_PARTITIONS.max + 1, 2.5, '6'])
      expect(() => checkKafkaPartitions(bad)).toThrow('kafka.partitions');
  });

  it("takes a replication factor of -1 (the brokers' default) or 1..KAFKA_MAX_REPLICATION, -1 when absent", () => {
    expect(checkKafkaReplicationFactor(undefined)).toBe(-1);
    for (const good of [-1, 1, 3, KAFKA_MAX_REPLICATION]) expect(checkKafkaReplicationFactor(good)).toBe(good);
    for (const bad of [0, -2, KAFKA_MAX_REPLICATION + 1, 1.5, '3'])
      expect(() => checkKafkaReplicationFactor(bad)).toThrow('kafka.replicationFactor');
  });

  it('is what compileConfig checks in the production profile', () => {
    expect(refusedByCompile({})).toBeUndefined();
    expect(refusedByCompile({ brokers: undefined })).toBe('kafka.brokers');
    expect(refusedByCompile({ brokers: ['k1'] })).toBe('kafka.brokers');
    expect(refusedByCompile({ topicPrefix: 'x'.repeat(65) })).toBe('kafka.topicPrefix');
    expect(refusedByCompile({ connectTimeoutMs: KAFKA_LIMITS.connectTimeoutMs.min - 1 })).toBe(
      'kafka.connectTimeoutMs',
    );
    expect(refusedByCompile({ partitions: 0 })).toBe('kafka.partitions');
    expect(refusedByCompile({ replicationFactor: 0 })).toBe('kafka.replicationFactor');
    expect(refusedByCompile({ partition: 6 })).toBe('kafka.partition'); // unknown fields are errors
  });

  it('compiles kafka.partitions and kafka.replicationFactor for the production profile, the defaults when absent', () => {
    const kafkaOf = (kafka: Record<string, unknown>) =>
      compileConfig({ ...PRODUCTION, kafka: { ...PRODUCTION.kafka, ...kafka } } as HeraldOptions).production!.kafka;
    expect(kafkaOf({})).toMatchObject({ partitions: 3, replicationFactor: -1 });
    expect(kafkaOf({ partitions: 12, replicationFactor: 3 })).toMatchObject({ partitions: 12, replicationFactor: 3 });
  });
});
