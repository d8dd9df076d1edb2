import { ConfigError } from '../errors';
import { compileConfig } from './compile';
import type { HeraldOptions } from './options';

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
const SECRET = 's3cret-never-shown';
const production = (extra: Record<string, object>) => {
  const options: Record<string, unknown> = { ...PRODUCTION };
  for (const [key, value] of Object.entries(extra))
    options[key] = { ...(PRODUCTION as unknown as Record<string, object>)[key], ...value };
  return compileConfig(options as HeraldOptions).production!;
};

function configError(extra: Record<string, object>): ConfigError {
  try {
    production(extra);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const e = error as ConfigError;
    expect(e.message).not.toContain('\n');
    expect(e.message).not.toContain(SECRET);
    return e;
  }
  throw new Error('expected a ConfigError');
}

describe('connection security settings', () => {
  it('compiles kafka.sasl and kafka.tls (mechanism in kafkajs spelling, rejectUnauthorized on by default)', () => {
    const { kafka } = production({
      kafka: {
        sasl: { mechanism: 'SCRAM-SHA-512', username: 'herald-executor', passwordFile: '/etc/herald/kafka.pw' },
        tls: { caFile: '/etc/herald/ca.pem' },
      },
    });
    expect(kafka.sasl).toEqual({
      mechanism: 'scram-sha-512',
      username: 'herald-executor',
      password: null,
      passwordFile: '/etc/herald/kafka.pw',
    });
    expect(kafka.tls).toEqual({
      caFile: '/etc/herald/ca.pem',
      certFile: null,
      keyFile: null,
      rejectUnauthorized: true,
    });
  });

  it('compiles zookeeper.auth and mysql.tls', () => {
    const digest = 'monitor:' + 'A'.repeat(27) + '=';
    const { zookeeper, mysql } = production({
      zookeeper: { auth: { credentialsFile: '/etc/herald/zk.auth', monitorDigest: digest } },
      mysql: { tls: { caFile: '/etc/herald/mysql-ca.pem', certFile: '/c.pem', keyFile: '/k.pem' } },
    });
    expect(zookeeper.auth).toEqual({
      credentials: null,
      credentialsFile: '/etc/herald/zk.auth',
      monitorDigest: digest,
    });
    expect(mysql.tls).toEqual({
      caFile: '/etc/herald/mysql-ca.pem',
      certFile: '/c.pem',
      keyFile: '/k.pem',
      rejectUnauthorized: true,
      verifyIdentity: true,
    });
  });

  it('compiles presence.hmacKeyFile in either profile', () => {
    expect(compileConfig({ presence: { hmacKeyFile: '/etc/herald/presence.key' } }).presence).toEqual({
      hmacKeyFile: '/etc/herald/presence.key',
    });
  });

  it.each([
    [
      'an unsupported SASL mechanism',
      { kafka: { sasl: { mechanism: 'GSSAPI', username: 'u', password: SECRET } } },
      'kafka.sasl.mechanism',
    ],
    [
      'a password without a username',
      { kafka: { sasl: { mechanism: 'scram-sha-256', password: SECRET } } },
      'kafka.sasl.username',
    ],
    [
      'a username without a password',
      { kafka: { sasl: { mechanism: 'scram-sha-256', username: 'u' } } },
      'kafka.sasl.password',
    ],
    [
      'both password and passwordFile',
      { kafka: { sasl: { mechanism: 'scram-sha-256', username: 'u', password: SECRET, passwordFile: '/p' } } },
      'kafka.sasl.passwordFile',
    ],
    [
      'PLAIN without TLS',
      { kafka: { sasl: { mechanism: 'plain', username: 'u', password: SECRET } } },
      'kafka.sasl.mechanism',
    ],
    ['an unknown TLS setting', { kafka: { tls: { ca: '/ca.pem' } } }, 'kafka.tls.ca'],
    ['a client certificate without a key', { kafka: { tls: { certFile: '/c.pem' } } }, 'kafka.tls.keyFile'],
    [
      'rejectUnauthorized not a boolean',
      { kafka: { tls: { rejectUnauthorized: 'no' } } },
      'kafka.tls.rejectUnauthorized',
    ],
    [
      'ZooKeeper credentials without a colon',
      { zookeeper: { auth: { credentials: SECRET } } },
      'zookeeper.auth.credentials',
    ],
    ['ZooKeeper auth naming no credentials', { zookeeper: { auth: {} } }, 'zookeeper.auth.credentials'],
    [
      'a monitoring identity that is not user:digest',
      { zookeeper: { auth: { credentials: `u:${SECRET}`, monitorDigest: 'monitor:password' } } },
      'zookeeper.auth.monitorDigest',
    ],
    [
      'verifyIdentity without rejectUnauthorized',
      { mysql: { tls: { rejectUnauthorized: false, verifyIdentity: true } } },
      'mysql.tls.verifyIdentity',
    ],
    ['a MySQL key without its certificate', { mysql: { tls: { keyFile: '/k.pem' } } }, 'mysql.tls.certFile'],
  ])('refuses %s, naming the setting and never the secret', (_, extra, setting) => {
    expect(configError(extra).setting).toBe(setting);
  });

  it('turns verifyIdentity off with rejectUnauthorized off', () => {
    expect(production({ mysql: { tls: { rejectUnauthorized: false } } }).mysql.tls).toMatchObject({
      rejectUnauthorized: false,
      verifyIdentity: false,
    });
  });
});
