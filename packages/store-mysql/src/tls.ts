import { ConfigError } from '@herald/core';
import type { SslOptions } from 'mysql2';

/**
 * TLS to MySQL (setting `mysql.tls`, docs/security-connections.md). The
 * production profile reads the PEM files the setting names and passes what
 * they hold here; this checks the combination and gives mysql2's `ssl`.
 */
export interface MySqlTlsMaterial {
  /** PEM CA certificate(s) the server's certificate must chain to; default Node's built-in CAs. */
  ca?: string | Buffer;
  /** PEM client certificate and key, for X509-authenticated users: both or neither. */
  cert?: string | Buffer;
  key?: string | Buffer;
  /** Refuse a server whose certificate does not verify. @defaultValue true */
  rejectUnauthorized?: boolean;
  /** Also check that the certificate names the host of mysql.url (needs rejectUnauthorized). @defaultValue rejectUnauthorized */
  verifyIdentity?: boolean;
}

/** mysql2's `ssl` for the material; a bad combination is a ConfigError naming its `mysql.tls.*` setting. */
export function compileMySqlTls(tls: MySqlTlsMaterial): SslOptions {
  if (tls === null || typeof tls !== 'object') throw new ConfigError('mysql.tls', 'must be an object');
  const rejectUnauthorized = flag('mysql.tls.rejectUnauthorized', tls.rejectUnauthorized, true);
  const verifyIdentity = flag('mysql.tls.verifyIdentity', tls.verifyIdentity, rejectUnauthorized);
  if (verifyIdentity && !rejectUnauthorized)
    throw new ConfigError(
      'mysql.tls.verifyIdentity',
      'needs mysql.tls.rejectUnauthorized (a host name is only worth checking on a verified certificate)',
    );
  if (tls.cert !== undefined && tls.key === undefined)
    throw new ConfigError(
      'mysql.tls.keyFile',
      "is required with mysql.tls.certFile (the client certificate's private key)",
    );
  if (tls.key !== undefined && tls.cert === undefined)
    throw new ConfigError('mysql.tls.certFile', 'is required with mysql.tls.keyFile (the client certificate)');
  return {
    rejectUnauthorized,
    verifyIdentity,
    ...(tls.ca === undefined ? {} : { ca: tls.ca }),
    ...(tls.cert === undefined ? {} : { cert: tls.cert }),
    ...(tls.key === undefined ? {} : { key: tls.key }),
  } as SslOptions;
}

function flag(setting: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new ConfigError(setting, 'must be true or false');
  return value;
}
