import { ConfigError } from '@herald/core';
import { connectionOptions, parseMySqlUrl } from './connection';
import { migrate } from './migrate';
import { MySqlTaskStore } from './mysql-task-store';
import { TEST_MYSQL_URL, uniqueDatabase } from './test-databases';
import type { MySqlTlsMaterial } from './tls';

/**
 * mysql.tls reaches mysql2 exactly, and a bad combination fails at start
 * naming its setting. The test MariaDB has no TLS, which checks the other
 * refusal: TLS asked of a server that does not offer it fails the start
 * naming mysql.tls instead of falling back to plaintext.
 */
const url = parseMySqlUrl('mysql://herald:pa55-never-shown@db.example:3306');

function configError(tls: unknown): ConfigError {
  try {
    connectionOptions(url, 'herald', tls as MySqlTlsMaterial);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).not.toContain('pa55');
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('mysql.tls', () => {
  it('passes no ssl without it (plaintext, as before)', () => {
    expect(connectionOptions(url, 'herald')).not.toHaveProperty('ssl');
  });

  it('passes the CA, the client certificate and key, rejectUnauthorized and verifyIdentity to mysql2 exactly', () => {
    const tls = {
      ca: 'CA PEM',
      cert: Buffer.from('CERT PEM'),
      key: 'KEY PEM',
      rejectUnauthorized: true,
      verifyIdentity: false,
    };
    expect(connectionOptions(url, 'herald', tls).ssl).toEqual({
      ca: 'CA PEM',
      cert: Buffer.from('CERT PEM'),
      key: 'KEY PEM',
      rejectUnauthorized: true,
      verifyIdentity: false,
    });
  });

  it('verifies the certificate and the host name by default once TLS is on', () => {
    expect(connectionOptions(url, 'herald', {}).ssl).toEqual({ rejectUnauthorized: true, verifyIdentity: true });
    expect(connectionOptions(url, 'herald', { rejectUnauthorized: false }).ssl).toEqual({
      rejectUnauthorized: false,
      verifyIdentity: false,
    });
  });

  it.each([
    [
      'verifyIdentity without rejectUnauthorized',
      { rejectUnauthorized: false, verifyIdentity: true },
      'mysql.tls.verifyIdentity',
    ],
    ['a client certificate without its key', { cert: 'CERT' }, 'mysql.tls.keyFile'],
    ['a key without its certificate', { key: 'KEY' }, 'mysql.tls.certFile'],
    ['rejectUnauthorized not a boolean', { rejectUnauthorized: 'yes' }, 'mysql.tls.rejectUnauthorized'],
    ['not an object', 'on', 'mysql.tls'],
  ])('refuses %s, naming the setting', (_, tls, setting) => {
    expect(configError(tls).setting).toBe(setting);
  });

  it('fails the start naming mysql.tls when the server does not offer TLS (never falls back to plaintext)', async () => {
    const database = uniqueDatabase();
    for (const open of [
      () => MySqlTaskStore.open({ url: TEST_MYSQL_URL, database, tls: {} }),
      () => migrate(TEST_MYSQL_URL, { database, tls: { rejectUnauthorized: false } }),
    ]) {
      const error = await open().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).setting).toBe('mysql.tls');
      expect((error as ConfigError).message).toMatch(/does not offer TLS/);
    }
  });
});
