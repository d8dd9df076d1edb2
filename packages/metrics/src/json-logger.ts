import { isHeraldError, redactSecrets } from '@herald/core';
import type { Logger } from '@herald/core/ports';

type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/**
 * Structured logs, one JSON object per line, at or above `level`: `time`,
 * `level` and `msg` first (fields cannot overwrite them), then `base` (e.g.
 * the tier and process id), then the call's fields. Log calls about one task
 * carry `taskId`, so `jq 'select(.taskId == 42)'` follows a task through
 * every tier's logs.
 *
 * A log line never throws: an Error field is written as its name, message,
 * code (HeraldError) and cause; a bigint as a string; a value that cannot be
 * written (a cycle) leaves the line with its plain fields and a note saying so.
 * Every line is redacted before it is written (core's redactSecrets): a field
 * may hold a URL with a password or a token that no caller thought of.
 */
export function createJsonLogger(options: { level?: Level; write?: (line: string) => void; base?: Record<string, unknown> } = {}): Logger {
  const min = ORDER[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => process.stderr.write(line + '\n'));
  const log = (level: Level) => (message: string, fields?: Record<string, unknown>) => {
    if (ORDER[level] < min) return;
    write(redactSecrets(line({ ...options.base, ...fields, time: new Date().toISOString(), level, msg: message })));
  };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

function line(record: Record<string, unknown>): string {
  const { time, level, msg, ...rest } = record;
  const ordered = { time, level, msg, ...rest };
  try {
    return JSON.stringify(ordered, replace);
  } catch (error) {
    // Keep what can be written (taskId and the like), drop the rest.
    const plain = Object.fromEntries(Object.entries(rest).filter(([, v]) => v === null || ['string', 'number', 'boolean'].includes(typeof v)));
    return JSON.stringify({ time, level, msg, ...plain, logError: `fields not written: ${String(error)}` });
  }
}

function replace(this: Record<string, unknown>, key: string, serialized: unknown): unknown {
  // The value before its toJSON ran (HeraldError has one, for API answers).
  const value = this[key];
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Error) {
    return {
      name: value.name,
      message: value.message,
      ...(isHeraldError(value) ? { code: value.code } : {}),
      ...(value.cause === undefined ? {} : { cause: value.cause instanceof Error ? value.cause.message : String(value.cause) }),
    };
  }
  return serialized;
}
