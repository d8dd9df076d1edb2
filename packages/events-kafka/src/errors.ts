import { ErrorCodes, HeraldError, isHeraldError } from '@herald/core';

export interface KafkaJsErrorLike {
  name?: unknown;
  message?: unknown;
  retriable?: unknown;
  type?: unknown;
  cause?: unknown;
}

/** The error kafkajs's wrappers were made from: follow `cause` to the innermost kafkajs error (one with a `retriable` flag). */
export function innermost(error: KafkaJsErrorLike): KafkaJsErrorLike {
  let e = error;
  for (let depth = 0; depth < 10; depth++) {
    const cause = e.cause as KafkaJsErrorLike | null | undefined;
    if (cause === null || typeof cause !== 'object' || cause === e || typeof cause.retriable !== 'boolean') break;
    e = cause;
  }
  return e;
}

/**
 * Whether trying again can succeed, by kafkajs's own `retriable` flag as
 * kafkajs itself reads it when deciding to restart a crashed consumer: the
 * flag of the original error. Its wrappers (`KafkaJSNumberOfRetriesExceeded`
 * when its own retries are spent, `KafkaJSNonRetriableError` around a
 * connection error that outlasted them) are non-retriable only in the sense
 * that kafkajs stopped trying; a dropped connection is still transient.
 */
export function isRetriable(error: unknown): boolean {
  if (error === null || typeof error !== 'object') return false;
  return innermost(error as KafkaJsErrorLike).retriable === true;
}

/**
 * Turns what kafkajs threw into a HeraldError: UNAVAILABLE when it may pass
 * (retriable), INTERNAL otherwise; the kafkajs error name and protocol error
 * type go into `details`, the original into `cause`. HeraldErrors pass through.
 */
export function toHeraldError(error: unknown, what: string): HeraldError {
  if (isHeraldError(error)) return error;
  const e = (error ?? {}) as KafkaJsErrorLike;
  const root = innermost(e);
  const retriable = isRetriable(error);
  const message = typeof root.message === 'string' ? root.message : String(error);
  return new HeraldError(retriable ? ErrorCodes.UNAVAILABLE : ErrorCodes.INTERNAL, `kafka: ${what}: ${message}`, {
    retriable,
    cause: error,
    details: {
      kafkajs: typeof root.name === 'string' ? root.name : undefined,
      ...(typeof root.type === 'string' ? { type: root.type } : {}),
    },
  });
}
