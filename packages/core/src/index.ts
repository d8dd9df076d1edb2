/**
 * @module @herald/core
 *
 * What every Herald package shares, whatever its area: the one error family (`HeraldError`
 * with a stable `code` and a `retriable` flag; callers branch on `ErrorCodes`, never on
 * message text), secret redaction for anything echoed, the private file modes, and a seeded
 * random source for tests and benchmarks. Core is pure: no I/O, no timers; every other
 * package depends on it and it depends on nothing.
 * Everything else has its own entry point, one per folder of src/ (`@herald/core/task`,
 * `@herald/core/config`, `@herald/core/ports`, ...; the table in docs/architecture.md);
 * each name is exported from exactly one of them.
 *
 * @example
 *   import { ErrorCodes, isHeraldError } from '@herald/core';
 *   if (isHeraldError(err) && err.code === ErrorCodes.TASK_NOT_FOUND) return undefined;
 */
export {
  ErrorCodes,
  HeraldError,
  ConfigError,
  ValidationError,
  NotFoundError,
  AccessDeniedError,
  RateLimitedError,
  ListFormatError,
  IllegalTransitionError,
  FencedError,
  FrameError,
  QueryError,
  TemplateError,
  AudienceSourceError,
  AccountQuotaError,
  isHeraldError,
} from './errors';
export type { ErrorCode, HeraldErrorOptions } from './errors';
export { PRIVATE_FILE_MODE, PRIVATE_DIR_MODE, GROUP_READ_FILE_MODE } from './file-modes';
export { redactSecrets } from './redact';
export { mulberry32, seededRandom } from './random';
