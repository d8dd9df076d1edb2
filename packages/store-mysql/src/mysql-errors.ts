import { ConfigError, ErrorCodes, HeraldError, isHeraldError } from '@herald/core';

/** The fields of a mysql2 error this adapter reads. */
interface MySqlErrorLike {
  code?: unknown;
  errno?: unknown;
  fatal?: unknown;
  message?: unknown;
}

/** Socket-level failures: the server is down, unreachable or went away. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_SERVER_SHUTDOWN',
  'ER_CON_COUNT_ERROR',
  'ER_TOO_MANY_USER_CONNECTIONS',
  'ER_CONNECTION_KILLED',
]);

/** Lock conflicts InnoDB resolves by aborting one transaction: trying again can succeed. */
const LOCK_CODES = new Set(['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT']);

/** Values the server refused to store as given (strict mode). */
const VALUE_CODES = new Set([
  'ER_DATA_TOO_LONG',
  'ER_WARN_DATA_OUT_OF_RANGE',
  'ER_TRUNCATED_WRONG_VALUE',
  'ER_TRUNCATED_WRONG_VALUE_FOR_FIELD',
  'ER_BAD_NULL_ERROR',
]);

export function mysqlCode(error: unknown): string | undefined {
  const code = (error as MySqlErrorLike | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function messageOf(error: unknown): string {
  const message = (error as MySqlErrorLike | null)?.message;
  return typeof message === 'string' && message !== '' ? message : String(error);
}

export function isDeadlock(error: unknown): boolean {
  return mysqlCode(error) === 'ER_LOCK_DEADLOCK';
}

export function isConnectionError(error: unknown): boolean {
  const code = mysqlCode(error);
  return (code !== undefined && CONNECTION_CODES.has(code)) || (error as MySqlErrorLike | null)?.fatal === true;
}

/**
 * Turns whatever mysql2 threw into a HeraldError; HeraldErrors pass through.
 * Connection failures, deadlocks and lock wait timeouts are UNAVAILABLE and
 * retriable (the whole call can be tried again); values the server refuses
 * are VALIDATION_FAILED; anything else is INTERNAL.
 */
export function toHeraldError(error: unknown, op: string, store = 'MySqlTaskStore'): HeraldError {
  if (isHeraldError(error)) return error;
  const code = mysqlCode(error);
  const details = { mysqlCode: code };
  if (isConnectionError(error)) {
    return new HeraldError(ErrorCodes.UNAVAILABLE, `${store}.${op}: database unavailable: ${messageOf(error)}`, {
      retriable: true,
      cause: error,
      details,
    });
  }
  if (code !== undefined && LOCK_CODES.has(code)) {
    return new HeraldError(ErrorCodes.UNAVAILABLE, `${store}.${op}: lock conflict, try again: ${messageOf(error)}`, {
      retriable: true,
      cause: error,
      details,
    });
  }
  if (code !== undefined && VALUE_CODES.has(code)) {
    return new HeraldError(
      ErrorCodes.VALIDATION_FAILED,
      `${store}.${op}: value refused by the database: ${messageOf(error)}`,
      { cause: error, details },
    );
  }
  return new HeraldError(ErrorCodes.INTERNAL, `${store}.${op} failed: ${messageOf(error)}`, { cause: error, details });
}

/** A URL safe to print: no user name or password. */
export function redactUrl(url: URL): string {
  return `${url.protocol}//${url.hostname}${url.port === '' ? '' : `:${url.port}`}`;
}

/** Node's codes for a server certificate that does not verify (or does not name the host). */
const TLS_REFUSALS = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * The one-line error for a failure to connect or to find the database, naming
 * the setting to fix: `mysql.url` (unreachable, bad credentials),
 * `mysql.database` (missing, not migrated) or `mysql.tls` (no TLS at the
 * server, a certificate that does not verify).
 */
export function connectError(error: unknown, url: URL, database: string): HeraldError {
  if (isHeraldError(error)) return error;
  const code = mysqlCode(error);
  const where = redactUrl(url);
  if (
    code === 'ER_ACCESS_DENIED_ERROR' ||
    code === 'ER_ACCESS_DENIED_NO_PASSWORD_ERROR' ||
    code === 'ER_NOT_SUPPORTED_AUTH_MODE'
  ) {
    return withCause(
      new ConfigError(
        'mysql.url',
        `access denied for user '${decodeURIComponent(url.username)}' at ${where} (bad credentials)`,
      ),
      error,
    );
  }
  if (code === 'ER_DBACCESS_DENIED_ERROR') {
    return withCause(
      new ConfigError(
        'mysql.url',
        `user '${decodeURIComponent(url.username)}' may not use database '${database}' at ${where}`,
      ),
      error,
    );
  }
  if (code === 'ER_BAD_DB_ERROR') {
    return withCause(
      new ConfigError('mysql.database', `database '${database}' does not exist at ${where}: run herald migrate`),
      error,
    );
  }
  if (code === 'HANDSHAKE_NO_SSL_SUPPORT')
    return withCause(new ConfigError('mysql.tls', `is set, but the server at ${where} does not offer TLS`), error);
  // mysql2 reports a failed TLS handshake as HANDSHAKE_SSL_ERROR with Node's reason (an unknown CA, a host name not in the certificate).
  if (code === 'HANDSHAKE_SSL_ERROR' || (code !== undefined && TLS_REFUSALS.has(code))) {
    return withCause(
      new ConfigError(
        'mysql.tls',
        `the certificate of the server at ${where} was refused (${messageOf(error)}): check mysql.tls.caFile and the host name of mysql.url`,
      ),
      error,
    );
  }
  if (isConnectionError(error)) {
    return new HeraldError(
      ErrorCodes.UNAVAILABLE,
      `config mysql.url: cannot reach ${where} (${code ?? messageOf(error)})`,
      {
        retriable: true,
        cause: error,
        details: { setting: 'mysql.url', mysqlCode: code },
      },
    );
  }
  return new HeraldError(ErrorCodes.INTERNAL, `config mysql.url: cannot open ${where}: ${messageOf(error)}`, {
    cause: error,
    details: { setting: 'mysql.url', mysqlCode: code },
  });
}

function withCause<E extends HeraldError>(error: E, cause: unknown): E {
  Object.defineProperty(error, 'cause', { value: cause, enumerable: false, configurable: true, writable: true });
  return error;
}
