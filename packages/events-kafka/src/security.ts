import { checkClientCertPair, checkKafkaSaslMechanism, checkPlainHasTls } from '@herald/core/config';
import { ConfigError } from '@herald/core';
import type { SASLOptions } from 'kafkajs';
import type { ConnectionOptions } from 'node:tls';

/**
 * SASL and TLS of the bus's connections (settings `kafka.sasl`, `kafka.tls`;
 * docs/security-connections.md). The production profile reads the files
 * those settings name and passes what they hold here.
 */
export interface KafkaSaslCredentials {
  /** 'scram-sha-512', 'scram-sha-256' or 'plain' (any case). */
  mechanism: string;
  username: string;
  /** Never shown in an error or a log line. */
  password: string;
}

export interface KafkaTlsMaterial {
  /** PEM CA certificate(s) the brokers' certificates must chain to; default Node's built-in CAs. */
  ca?: string | Buffer;
  /** PEM client certificate and key, for mutual TLS: both or neither. */
  cert?: string | Buffer;
  key?: string | Buffer;
  /** @defaultValue true */
  rejectUnauthorized?: boolean;
}

export interface KafkaSecurity {
  sasl: SASLOptions | undefined;
  /** Node's tls.connect options, passed through by kafkajs; undefined: plaintext. */
  ssl: ConnectionOptions | undefined;
}

/**
 * Checks SASL and TLS: a ConfigError naming `kafka.sasl.*` or `kafka.tls.*`
 * for an unsupported mechanism, a missing username or password, half a client
 * certificate, or PLAIN without TLS (it would send the password as is). The
 * password is never part of a message.
 */
export function compileKafkaSecurity(
  sasl: KafkaSaslCredentials | undefined,
  tls: KafkaTlsMaterial | undefined,
): KafkaSecurity {
  const ssl = tls === undefined ? undefined : compileTls(tls);
  if (sasl === undefined) return { sasl: undefined, ssl };
  const mechanism = checkKafkaSaslMechanism(sasl.mechanism);
  const { username, password } = sasl;
  if (typeof password !== 'string' || password.length === 0)
    throw new ConfigError('kafka.sasl.password', 'is required with kafka.sasl (or kafka.sasl.passwordFile)');
  if (typeof username !== 'string' || username.length === 0)
    throw new ConfigError('kafka.sasl.username', 'is required with kafka.sasl.password');
  checkPlainHasTls(mechanism, ssl !== undefined);
  return { sasl: { mechanism, username, password } as SASLOptions, ssl };
}

function compileTls({ ca, cert, key, rejectUnauthorized = true }: KafkaTlsMaterial): ConnectionOptions {
  if (typeof rejectUnauthorized !== 'boolean')
    throw new ConfigError('kafka.tls.rejectUnauthorized', 'must be true or false');
  checkClientCertPair('kafka.tls', cert !== undefined, key !== undefined);
  return {
    rejectUnauthorized,
    ...(ca === undefined ? {} : { ca: [ca] }),
    ...(cert === undefined ? {} : { cert }),
    ...(key === undefined ? {} : { key }),
  };
}
