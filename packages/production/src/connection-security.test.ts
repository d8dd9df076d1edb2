import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compileConfig, type HeraldOptions, type ProductionConfig } from '@herald/core/config';
import { ConfigError } from '@herald/core';
import { makeTempDir, type TempDir } from '@herald/testing';
import { kafkaSecurityOptions, mysqlOptions, zookeeperAuthOptions } from './connection-security';

/**
 * The files the security settings name are read at start: their contents reach
 * the adapters, and a missing, unreadable or malformed one fails with one line
 * naming its setting, never showing a secret.
 */
const SECRET = 'pa55-never-shown';
let dir: TempDir;
beforeEach(async () => {
  dir = await makeTempDir('herald-conn-security-');
});
afterEach(() => dir.remove());

function production(extra: { kafka?: object; zookeeper?: object; mysql?: object }): ProductionConfig {
  return compileConfig({
    profile: 'production',
    mysql: { url: 'mysql://herald@db:3306', ...extra.mysql },
    zookeeper: { connectionString: 'zk1:2181', ...extra.zookeeper },
    kafka: { brokers: ['k1:9092'], ...extra.kafka },
    curve: { keysDir: '/etc/herald/keys' },
    topology: {
      schedulers: [{ id: 'scheduler-1', endpoint: 'tcp://10.0.0.1:7101' }],
      dispatchers: [{ id: 'dispatcher-1', endpoint: 'tcp://10.0.0.2:7201' }],
      executors: [{ id: 'executor-1', endpoint: 'tcp://10.0.0.3:7301' }],
      presence: [{ id: 'presence-1', bitmapFile: '/dev/shm/herald-online.bitmap', executors: ['executor-1'] }],
    },
  } as HeraldOptions).production!;
}

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).not.toContain(SECRET);
    expect((error as ConfigError).message).not.toContain('\n');
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('connection security files', () => {
  it('reads the Kafka password file (one trailing newline dropped) and the PEM files into what kafkajs gets', async () => {
    const file = (name: string, text: string) => writeFile(join(dir.path, name), text).then(() => join(dir.path, name));
    const passwordFile = await file('kafka.pw', `${SECRET}\n`);
    const caFile = await file('ca.pem', 'CA PEM');
    const certFile = await file('cert.pem', 'CERT PEM');
    const keyFile = await file('key.pem', 'KEY PEM');
    const options = kafkaSecurityOptions(
      production({
        kafka: {
          sasl: { mechanism: 'scram-sha-512', username: 'herald-executor', passwordFile },
          tls: { caFile, certFile, keyFile },
        },
      }).kafka,
    );
    expect(options).toEqual({
      sasl: { mechanism: 'scram-sha-512', username: 'herald-executor', password: SECRET },
      tls: {
        rejectUnauthorized: true,
        ca: Buffer.from('CA PEM'),
        cert: Buffer.from('CERT PEM'),
        key: Buffer.from('KEY PEM'),
      },
    });
  });

  it('passes nothing when no security setting is given', () => {
    const config = production({});
    expect(kafkaSecurityOptions(config.kafka)).toEqual({});
    expect(zookeeperAuthOptions(config.zookeeper)).toBeUndefined();
    expect(mysqlOptions(config.mysql)).toEqual({
      url: 'mysql://herald@db:3306',
      database: 'herald',
      poolSize: 10,
      replyTimeoutMs: 60_000,
    });
  });

  it('fails naming the setting when a file is missing or unreadable', async () => {
    const missing = join(dir.path, 'nope.pem');
    expect(
      configError(() => kafkaSecurityOptions(production({ kafka: { tls: { caFile: missing } } }).kafka)).message,
    ).toBe(`config kafka.tls.caFile: cannot read ${JSON.stringify(missing)} (ENOENT)`);
    expect(
      configError(() =>
        kafkaSecurityOptions(
          production({ kafka: { sasl: { mechanism: 'scram-sha-256', username: 'u', passwordFile: missing } } }).kafka,
        ),
      ).setting,
    ).toBe('kafka.sasl.passwordFile');
    expect(configError(() => mysqlOptions(production({ mysql: { tls: { caFile: missing } } }).mysql)).setting).toBe(
      'mysql.tls.caFile',
    );
    expect(
      configError(() =>
        zookeeperAuthOptions(production({ zookeeper: { auth: { credentialsFile: missing } } }).zookeeper),
      ).setting,
    ).toBe('zookeeper.auth.credentialsFile');
    const directory = dir.path; // EISDIR: a path that exists but is no file
    expect(
      configError(() => mysqlOptions(production({ mysql: { tls: { certFile: directory, keyFile: directory } } }).mysql))
        .setting,
    ).toBe('mysql.tls.certFile');
    if (process.getuid?.() !== 0) {
      const locked = join(dir.path, 'locked.pem');
      await writeFile(locked, 'x');
      await chmod(locked, 0o000);
      expect(
        configError(() =>
          kafkaSecurityOptions(production({ kafka: { tls: { keyFile: locked, certFile: locked } } }).kafka),
        ).message,
      ).toMatch(/EACCES/);
    }
  });

  it('reads ZooKeeper credentials from a file, and refuses one that is not user:password without showing it', async () => {
    const good = join(dir.path, 'zk.auth');
    await writeFile(good, `herald:${SECRET}\n`);
    expect(zookeeperAuthOptions(production({ zookeeper: { auth: { credentialsFile: good } } }).zookeeper)).toEqual({
      credentials: `herald:${SECRET}`,
    });
    const bad = join(dir.path, 'zk-bad.auth');
    await writeFile(bad, SECRET);
    expect(
      configError(() => zookeeperAuthOptions(production({ zookeeper: { auth: { credentialsFile: bad } } }).zookeeper))
        .setting,
    ).toBe('zookeeper.auth.credentialsFile');
  });

  it('reads the MySQL PEM files into what mysql2 gets', async () => {
    const caFile = join(dir.path, 'mysql-ca.pem');
    await writeFile(caFile, 'MYSQL CA');
    expect(mysqlOptions(production({ mysql: { tls: { caFile } } }).mysql, 1)).toEqual({
      url: 'mysql://herald@db:3306',
      database: 'herald',
      poolSize: 1,
      replyTimeoutMs: 60_000,
      tls: { rejectUnauthorized: true, verifyIdentity: true, ca: Buffer.from('MYSQL CA') },
    });
  });
});
