/**
 * Every way opening a shared bitmap can fail, as one error class. `code` is
 * one of core's stable ErrorCodes (what a caller branches on: fix the
 * configuration, wait and retry, give up); `reason` is this package's stable
 * name for the exact case, and `path` names the file. Messages may change.
 */
import { ErrorCodes, HeraldError, type ErrorCode } from '@herald/core';

export const SHARED_BITMAP_REASONS = {
  /** uinLimit is not an integer in [1, 2^32]. */
  BAD_UIN_LIMIT: ErrorCodes.CONFIG_INVALID,
  /** The writer's directory does not exist (creating it is the deployment's job, not the writer's). */
  NO_DIRECTORY: ErrorCodes.CONFIG_INVALID,
  /** A reader found no file: the writer has not created it yet. Retriable. */
  NOT_FOUND: ErrorCodes.NOT_FOUND,
  /** The file is shorter than its header says (or than a header). */
  TOO_SHORT: ErrorCodes.CONFIG_INVALID,
  /** The file does not start with the bitmap magic: the path points at something else. */
  BAD_MAGIC: ErrorCodes.CONFIG_INVALID,
  /** A format version this code does not read. */
  UNSUPPORTED_VERSION: ErrorCodes.CONFIG_INVALID,
  /** A header whose fields disagree with each other. */
  BAD_HEADER: ErrorCodes.CONFIG_INVALID,
  /** The file was made for another uin space than the one configured. */
  UIN_LIMIT_MISMATCH: ErrorCodes.CONFIG_INVALID,
  /** Another writer (another presence agent) holds the file's lock. Retriable: it may be on its way out. */
  WRITER_EXISTS: ErrorCodes.UNAVAILABLE,
  /** Used after close(). */
  CLOSED: ErrorCodes.STORE_CLOSED,
  /** The system refused (open, flock, posix_fallocate, mmap): `details.errno` says why. */
  OS_ERROR: ErrorCodes.UNAVAILABLE,
  /** The native addon was not built. */
  ADDON_MISSING: ErrorCodes.INTERNAL,
} as const satisfies Record<string, ErrorCode>;

export type SharedBitmapReason = keyof typeof SHARED_BITMAP_REASONS;

const RETRIABLE: ReadonlySet<SharedBitmapReason> = new Set(['NOT_FOUND', 'WRITER_EXISTS']);

export class SharedBitmapError extends HeraldError {
  readonly reason: SharedBitmapReason;
  readonly path: string;

  constructor(
    reason: SharedBitmapReason,
    path: string,
    message: string,
    options: { code?: ErrorCode; cause?: unknown; details?: Record<string, unknown> } = {},
  ) {
    super(options.code ?? SHARED_BITMAP_REASONS[reason], `shared bitmap ${path}: ${message}`, {
      retriable: RETRIABLE.has(reason),
      cause: options.cause,
      details: { reason, path, ...options.details },
    });
    this.reason = reason;
    this.path = path;
  }
}

/** errno codes that no retry can fix: the configuration (path, permissions, /dev/shm size) must change. */
const CONFIG_ERRNOS = new Set([
  'EACCES',
  'EPERM',
  'EROFS',
  'EISDIR',
  'ENOTDIR',
  'ENAMETOOLONG',
  'ELOOP',
  'ENOSPC',
  'EDQUOT',
  'EFBIG',
]);

/** Wraps an error thrown by the addon (code, errno, syscall) in a SharedBitmapError. */
export function osError(path: string, error: unknown): SharedBitmapError {
  const { code, errno, syscall } = (error ?? {}) as { code?: unknown; errno?: unknown; syscall?: unknown };
  const errnoCode = typeof code === 'string' ? code : 'UNKNOWN';
  return new SharedBitmapError('OS_ERROR', path, `${String(syscall ?? 'system call')} failed: ${errorMessage(error)}`, {
    code: CONFIG_ERRNOS.has(errnoCode) ? ErrorCodes.CONFIG_INVALID : ErrorCodes.UNAVAILABLE,
    cause: error,
    details: { errno: errnoCode, errnoNumber: errno, syscall },
  });
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
