import { ConfigError } from '../errors';
import {
  KAFKA_SASL_MECHANISMS,
  type KafkaSaslConfig,
  type KafkaSaslMechanism,
  type MySqlTlsConfig,
  type PresenceConfig,
  type TlsFileConfig,
  type ZooKeeperAuthConfig,
} from './connection-security';
import type { HeraldOptions } from './options';
import { section } from './section';
import { checkKnownKeys } from './validate';
import { checkZooKeeperCredentials, checkZooKeeperMonitorDigest } from './zookeeper-settings';

/**
 * Step three for the connection security settings (docs/configuration.md,
 * docs/security-connections.md): shapes and pairings only. The files named
 * are read by the adapters when they connect, which is still at start, and an
 * unreadable one fails there with a ConfigError naming its setting. No error
 * here ever shows a password, a credential or a key: only which setting is
 * wrong and why.
 */

/** `kafka.sasl`, or null when absent. */
export function compileKafkaSasl(value: unknown, path = 'kafka.sasl'): KafkaSaslConfig | null {
  if (value === undefined) return null;
  const sasl = object(path, value, ['mechanism', 'username', 'password', 'passwordFile']);
  const mechanism = checkKafkaSaslMechanism(sasl.mechanism, `${path}.mechanism`);
  const { password, passwordFile } = secretOrFile(path, 'password', sasl.password, sasl.passwordFile);
  if (typeof sasl.username !== 'string' || sasl.username.length === 0)
    throw new ConfigError(`${path}.username`, `is required with ${path}.password${password === null ? 'File' : ''}`);
  return { mechanism, username: sasl.username, password, passwordFile };
}

/** `kafka.sasl` and `kafka.tls` together: PLAIN without TLS would send the password as is, so it is refused. */
export function compileKafkaSecurityConfig(
  saslValue: unknown,
  tlsValue: unknown,
): { sasl: KafkaSaslConfig | null; tls: TlsFileConfig | null } {
  const sasl = compileKafkaSasl(saslValue);
  const tls = compileTlsFiles(tlsValue, 'kafka.tls');
  if (sasl !== null) checkPlainHasTls(sasl.mechanism, tls !== null);
  return { sasl, tls };
}

/** `<path>` (kafka.tls): TLS settings naming PEM files, or null when absent. */
export function compileTlsFiles(value: unknown, path: string, extraKeys: string[] = []): TlsFileConfig | null {
  if (value === undefined) return null;
  const tls = object(path, value, ['caFile', 'certFile', 'keyFile', 'rejectUnauthorized', ...extraKeys]);
  const caFile = optionalPath(`${path}.caFile`, tls.caFile);
  const certFile = optionalPath(`${path}.certFile`, tls.certFile);
  const keyFile = optionalPath(`${path}.keyFile`, tls.keyFile);
  checkClientCertPair(path, certFile !== null, keyFile !== null);
  return {
    caFile,
    certFile,
    keyFile,
    rejectUnauthorized: bool(`${path}.rejectUnauthorized`, tls.rejectUnauthorized, true),
  };
}

/** `mysql.tls`, or null when absent. */
export function compileMySqlTls(value: unknown, path = 'mysql.tls'): MySqlTlsConfig | null {
  const files = compileTlsFiles(value, path, ['verifyIdentity']);
  if (files === null) return null;
  const verifyIdentity = bool(
    `${path}.verifyIdentity`,
    (value as Record<string, unknown>).verifyIdentity,
    files.rejectUnauthorized,
  );
  if (verifyIdentity && !files.rejectUnauthorized)
    throw new ConfigError(
      `${path}.verifyIdentity`,
      `needs ${path}.rejectUnauthorized (a host name is only worth checking on a verified certificate)`,
    );
  return { ...files, verifyIdentity };
}

/** `zookeeper.auth`, or null when absent. */
export function compileZooKeeperAuth(value: unknown, path = 'zookeeper.auth'): ZooKeeperAuthConfig | null {
  if (value === undefined) return null;
  const auth = object(path, value, ['credentials', 'credentialsFile', 'monitorDigest']);
  const { password: credentials, passwordFile: credentialsFile } = secretOrFile(
    path,
    'credentials',
    auth.credentials,
    auth.credentialsFile,
  );
  if (credentials !== null) checkZooKeeperCredentials(credentials, `${path}.credentials`);
  const monitorDigest =
    auth.monitorDigest === undefined ? null : checkZooKeeperMonitorDigest(auth.monitorDigest, `${path}.monitorDigest`);
  return { credentials, credentialsFile, monitorDigest };
}

/** The `presence` section. */
export function compilePresence(options: HeraldOptions): PresenceConfig {
  const presence = section(options, 'presence', ['hmacKeyFile']);
  return { hmacKeyFile: optionalPath('presence.hmacKeyFile', presence.hmacKeyFile) };
}

function object(path: string, value: unknown, known: string[]): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new ConfigError(path, 'must be an object');
  checkKnownKeys(path, value, known);
  return value as Record<string, unknown>;
}

/**
 * kafka.sasl.mechanism: one of KAFKA_SASL_MECHANISMS, any case. Exported with
 * the two checks below for the Kafka event bus, which takes the same settings
 * as options: one rule, one message.
 */
export function checkKafkaSaslMechanism(value: unknown, setting = 'kafka.sasl.mechanism'): KafkaSaslMechanism {
  const wanted = typeof value === 'string' ? value.toLowerCase() : value;
  const found = KAFKA_SASL_MECHANISMS.find((m) => m === wanted);
  if (found === undefined)
    throw new ConfigError(
      setting,
      `must be one of ${KAFKA_SASL_MECHANISMS.join(', ')} (got ${JSON.stringify(value) ?? typeof value})`,
    );
  return found;
}

/** PLAIN sends the password as is: refused without TLS (`kafka.tls`, or the tls beside `setting`'s sasl). */
export function checkPlainHasTls(
  mechanism: KafkaSaslMechanism,
  hasTls: boolean,
  setting = 'kafka.sasl.mechanism',
): void {
  if (mechanism === 'plain' && !hasTls)
    throw new ConfigError(
      setting,
      `'plain' sends the password unencrypted: set ${setting.replace(/sasl\.mechanism$/, 'tls')} too, or use scram-sha-512`,
    );
}

/** A client certificate needs its key and the other way round (`<path>.certFile`, `<path>.keyFile`). */
export function checkClientCertPair(path: string, hasCert: boolean, hasKey: boolean): void {
  if (hasCert && !hasKey)
    throw new ConfigError(
      `${path}.keyFile`,
      `is required with ${path}.certFile (the client certificate's private key)`,
    );
  if (hasKey && !hasCert)
    throw new ConfigError(`${path}.certFile`, `is required with ${path}.keyFile (the client certificate)`);
}

/** Exactly one of an inline secret and a file holding it; the secret itself is never shown. */
function secretOrFile(
  path: string,
  name: string,
  inline: unknown,
  file: unknown,
): { password: string | null; passwordFile: string | null } {
  if (inline !== undefined && file !== undefined)
    throw new ConfigError(`${path}.${name}File`, `and ${path}.${name} are both set: give one`);
  if (inline === undefined && file === undefined)
    throw new ConfigError(`${path}.${name}`, `or ${path}.${name}File is required`);
  if (inline !== undefined) {
    if (typeof inline !== 'string' || inline.length === 0)
      throw new ConfigError(`${path}.${name}`, 'must be a non-empty string (the value is not shown)');
    return { password: inline, passwordFile: null };
  }
  return { password: null, passwordFile: optionalPath(`${path}.${name}File`, file) };
}

function optionalPath(path: string, value: unknown): string | null {
  if (value === undefined) return null;
  if (typeof value !== 'string' || value.length === 0 || value.includes('\0'))
    throw new ConfigError(path, `must be a file path (got ${JSON.stringify(value) ?? typeof value})`);
  return value;
}

function bool(path: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean')
    throw new ConfigError(path, `must be true or false (got ${JSON.stringify(value) ?? typeof value})`);
  return value;
}
