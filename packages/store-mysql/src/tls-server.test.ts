import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '@herald/core';
import { makeTempDir, PrivateMariaDb, type TempDir } from '@herald/testing';
import { createConnection, type RowDataPacket } from 'mysql2/promise';
import { connectionOptions, parseMySqlUrl } from './connection';
import { migrate } from './migrate';
import { MySqlTaskStore } from './mysql-task-store';
import type { MySqlTlsMaterial } from './tls';

/**
 * mysql.tls against a MariaDB that offers TLS: a private server started with
 * a certificate from a throwaway CA, named db.herald.test (not the address
 * the tests connect to, 127.0.0.1). With the right CA the connection is
 * encrypted; with another CA, or with verifyIdentity on, the start fails
 * naming mysql.tls.
 */
let dir: TempDir;
let db: PrivateMariaDb;
let ca: Buffer;
let otherCa: Buffer;

function openssl(args: string[]): void {
  execFileSync('openssl', args, { cwd: dir.path, stdio: 'ignore' });
}

/** A CA, and a server certificate it signed for db.herald.test. */
function makeCertificates(): void {
  for (const name of ['ca', 'other-ca'])
    openssl([
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.pem`,
      '-days',
      '2',
      '-subj',
      `/CN=herald ${name}`,
    ]);
  openssl([
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'server.key',
    '-out',
    'server.csr',
    '-subj',
    '/CN=db.herald.test',
  ]);
  writeFileSync(join(dir.path, 'san.ext'), 'subjectAltName=DNS:db.herald.test\n');
  openssl([
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '2',
    '-extfile',
    'san.ext',
  ]);
}

beforeAll(async () => {
  dir = await makeTempDir('herald-mysql-tls-');
  makeCertificates();
  ca = readFileSync(join(dir.path, 'ca.pem'));
  otherCa = readFileSync(join(dir.path, 'other-ca.pem'));
  const file = (name: string) => join(dir.path, name);
  db = await PrivateMariaDb.start([
    `--ssl-ca=${file('ca.pem')}`,
    `--ssl-cert=${file('server.pem')}`,
    `--ssl-key=${file('server.key')}`,
  ]);
}, 120_000);
afterAll(async () => {
  await db?.destroy();
  await dir?.remove();
});

async function cipherOf(tls: MySqlTlsMaterial): Promise<string> {
  const conn = await createConnection(connectionOptions(parseMySqlUrl(db.url), undefined, tls));
  try {
    const [rows] = await conn.query<RowDataPacket[]>("SHOW SESSION STATUS LIKE 'Ssl_cipher'");
    return String(rows[0]?.Value ?? '');
  } finally {
    await conn.end();
  }
}

async function startError(open: () => Promise<unknown>): Promise<ConfigError> {
  const error = await open().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

describe('mysql.tls against a server that offers TLS', () => {
  it('encrypts the connection, verifying the certificate against mysql.tls.caFile', async () => {
    expect(await cipherOf({ ca, verifyIdentity: false })).not.toBe('');
    const { database } = await migrate(db.url, { database: 'herald_tls', tls: { ca, verifyIdentity: false } });
    const store = await MySqlTaskStore.open({ url: db.url, database, tls: { ca, verifyIdentity: false } });
    await store.close();
  });

  it('refuses a certificate another CA signed, naming mysql.tls', async () => {
    const error = await startError(() =>
      MySqlTaskStore.open({ url: db.url, database: 'herald_tls', tls: { ca: otherCa, verifyIdentity: false } }),
    );
    expect(error.setting).toBe('mysql.tls');
    expect(error.message).toMatch(
      /certificate of the server .* was refused \(self-signed certificate in certificate chain\)/,
    );
  });

  it('refuses a certificate that does not name the host of mysql.url when verifyIdentity is on (the default)', async () => {
    const error = await startError(() => MySqlTaskStore.open({ url: db.url, database: 'herald_tls', tls: { ca } }));
    expect(error.setting).toBe('mysql.tls');
    // mysql.url names 127.0.0.1; for an IP address mysql2 has Node check the name "localhost" (docs/security-connections.md).
    expect(error.message).toMatch(/not in the cert's altnames: DNS:db\.herald\.test/);
  });
});
