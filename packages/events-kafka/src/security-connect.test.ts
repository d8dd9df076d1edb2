import { ConfigError } from '@herald/core';
import { KafkaEventBus } from './kafka-event-bus';

/**
 * SASL against the test broker: librdkafka's mock cluster does not speak
 * SASL at all (it answers the handshake as an unsupported API), so this can
 * only check the failure path: the start fails with one line, and neither the
 * message nor anything logged holds the password.
 */
const brokers = (process.env.HERALD_TEST_KAFKA_BROKERS ?? '').split(',').filter(Boolean);
const PASSWORD = 'pa55-never-shown';

it('fails to start against brokers that do not take the credentials, never showing the password', async () => {
  if (brokers.length === 0)
    throw new Error('HERALD_TEST_KAFKA_BROKERS is not set (jest global setup starts the kcat mock cluster)');
  const logged: string[] = [];
  const record = (message: string, fields?: object) => void logged.push(`${message} ${JSON.stringify(fields ?? {})}`);
  const logger = { debug: record, info: record, warn: record, error: record };
  const error = await KafkaEventBus.connect({
    brokers,
    clientId: 'sasl-test',
    connectTimeoutMs: 5000,
    logger,
    sasl: { mechanism: 'scram-sha-512', username: 'herald-test', password: PASSWORD },
  }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  expect((error as ConfigError).message).not.toContain('\n');
  expect((error as ConfigError).message).not.toContain(PASSWORD);
  expect(logged.join('\n')).not.toContain(PASSWORD);
});
