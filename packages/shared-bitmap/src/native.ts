/**
 * The native addon (native/shared_bitmap.c), loaded once, with types. See the
 * C file's header for the exact behaviour of each call.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SharedBitmapError } from './errors';

export interface NativeBinding {
  /** Maps `path` MAP_SHARED; `length` 0 maps the whole file. Throws Node-style errors (code, errno, syscall, path). */
  map(path: string, flags: number, length: number): ArrayBuffer;
  /** Detaches and munmaps a buffer returned by map(); false if it was not mapped (any more). */
  unmap(buffer: ArrayBuffer): boolean;
  advise(buffer: ArrayBuffer, advice: Advice): void;
  readonly flags: {
    readonly WRITABLE: number;
    readonly CREATE: number;
    readonly LOCK: number;
    readonly POPULATE: number;
  };
}

/** madvise over a whole mapping. */
export type Advice = 'normal' | 'random' | 'sequential' | 'willneed' | 'dontneed' | 'hugepage' | 'nohugepage';

/** Same path from src/ (tests) and dist/ (compiled): both sit next to build/. */
const ADDON = join(__dirname, '..', 'build', 'Release', 'shared_bitmap.node');

let binding: NativeBinding | undefined;

export function native(): NativeBinding {
  if (binding === undefined) {
    if (!existsSync(ADDON)) {
      throw new SharedBitmapError(
        'ADDON_MISSING',
        ADDON,
        'the native addon is not built: run `npm install` at the repository root (or `node packages/shared-bitmap/scripts/build-native.js`)',
      );
    }
    // The addon is a .node file built at install time, found by path at run time: only require loads it.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    binding = require(ADDON) as NativeBinding;
  }
  return binding;
}
