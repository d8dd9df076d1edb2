import { ConfigError } from '../errors';
import type { HeraldOptions } from './options';
import { checkKnownKeys } from './validate';

/**
 * One top-level section of the options, checked to be an object with only
 * `known` keys. Kept apart from validate.ts (which the APTA config uses too),
 * so options.ts can name APTA's types without an import cycle.
 */
export function section<K extends keyof HeraldOptions>(
  options: HeraldOptions,
  key: K,
  known: string[],
): NonNullable<HeraldOptions[K]> & Record<string, unknown> {
  const value = options[key];
  if (value === undefined) return {} as NonNullable<HeraldOptions[K]> & Record<string, unknown>;
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new ConfigError(key, 'must be an object');
  checkKnownKeys(key, value as object, known);
  return value as NonNullable<HeraldOptions[K]> & Record<string, unknown>;
}
