import { isHeraldError, redactSecrets } from '@herald/core';
import type { Logger } from '@herald/core/ports';
import pino from 'pino';

type Level = 'debug' | 'info' | 'warn' | 'error';

/** A Logger that can make children: each line of a child carries its fields (a tier, a task). */
export interface JsonLogger extends Logger {
  child(fields: Record<string, unknown>): JsonLogger;
}

export interface JsonLoggerOptions {
  /** Lines below this level are not written. Default 'info'. */
  level?: Level;
  /** Receives each line without its newline. Default: standard error. */
  write?: (line: string) => void;
  /** Fields on every line (e.g. the tier and process id). */
  base?: Record<string, unknown>;
}

/**
 * Field names whose value is a credential, censored by pino wherever they sit at the top
 * of a line or one object down. Text that holds a credential under any other name (a URL
 * with a password, an Authorization header in an error message) is caught by core's
 * redactSecrets, which every line goes through as well.
 */
export const REDACTED_FIELDS: readonly string[] = [
  'password',
  'passwd',
  'secret',
  'secretKey',
  'privateKey',
  'apiKey',
  'api_key',
  'hmacKey',
  'token',
  'accessToken',
  'managementToken',
  'authorization',
  'cookie',
  'credential',
];

/** The keys every line starts with, in this order; a field of the same name is dropped. */
const HEAD = ['time', 'level', 'msg'] as const;

/**
 * Structured logs on pino, one JSON object per line, at or above `level`: `time`, `level`
 * (its name) and `msg` first (fields cannot overwrite them), then `base` and a child's
 * fields, then the call's fields. Log calls about one task carry `taskId` (or come from a
 * `child({ taskId })`), so `jq 'select(.taskId == 42)'` follows a task through every
 * tier's logs.
 *
 * A log line never throws: an Error field is written as its name, message, code
 * (HeraldError) and cause; a bigint as a string; a value that cannot be written (a cycle)
 * is left out and a `logError` field says so.
 */
export function createJsonLogger(options: JsonLoggerOptions = {}): JsonLogger {
  const write = options.write ?? ((line: string) => process.stderr.write(line + '\n'));
  const root = pino(
    {
      level: options.level ?? 'info',
      base: options.base ?? null,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }), log: loggable },
      redact: { paths: REDACTED_FIELDS.flatMap((name) => [name, `*.${name}`]), censor: '***' },
      // pino writes level, time, bindings, fields, then msg; Herald's lines (and the jq
      // recipes in the docs) put time, level and msg first. Reordering a parsed line still
      // costs less than the hand-written logger this replaced (bench in the commit message).
      hooks: { streamWrite: (line) => headFirst(line) },
    },
    { write: (line: string) => write(line.endsWith('\n') ? line.slice(0, -1) : line) },
  );
  return wrap(root);
}

function wrap(logger: pino.Logger): JsonLogger {
  const at = (level: Level) => (message: string, fields?: Record<string, unknown>) =>
    logger[level](fields ?? {}, message);
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (fields) => wrap(logger.child(loggable(fields))),
  };
}

/** The call's fields as they can be written: no head key, errors and bigints made plain, cycles left out. */
function loggable(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const unwritten: string[] = [];
  for (const [key, value] of Object.entries(fields)) {
    if ((HEAD as readonly string[]).includes(key)) continue;
    if (value === null || typeof value !== 'object') out[key] = typeof value === 'bigint' ? value.toString() : value;
    else if (value instanceof Error) out[key] = plainError(value);
    else {
      try {
        out[key] = JSON.parse(JSON.stringify(value, replace)) as unknown;
      } catch (error) {
        unwritten.push(`${key} (${(error as Error).message})`);
      }
    }
  }
  if (unwritten.length > 0) out.logError = `fields not written: ${unwritten.join(', ')}`;
  return out;
}

function headFirst(line: string): string {
  const { time, level, msg, ...rest } = JSON.parse(line) as Record<string, unknown>;
  return redactSecrets(JSON.stringify({ time, level, msg, ...rest })) + '\n';
}

function plainError(error: Error): Record<string, unknown> {
  return {
    name: error.name,
    message: error.message,
    ...(isHeraldError(error) ? { code: error.code } : {}),
    ...(error.cause === undefined
      ? {}
      : { cause: error.cause instanceof Error ? error.cause.message : String(error.cause) }),
  };
}

function replace(this: Record<string, unknown>, key: string, serialized: unknown): unknown {
  // The value before its toJSON ran (HeraldError has one, for API answers).
  const value = this[key];
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Error) return plainError(value);
  return serialized;
}
