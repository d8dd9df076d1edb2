import { ConfigError } from '../errors';

/** Small validators shared by the config compilers; each names the setting it checks. */

export function checkKnownKeys(path: string, value: object, known: string[]): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) {
      const where = path === '(root)' ? key : `${path}.${key}`;
      throw new ConfigError(where, `is not a known setting (known: ${known.join(', ')})`);
    }
  }
}

export function int(path: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(path, `must be an integer in [${min}, ${max}] (got ${JSON.stringify(value)})`);
  }
  return value;
}

export function str(path: string, value: unknown, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || value.length === 0)
    throw new ConfigError(path, `must be a non-empty string (got ${JSON.stringify(value)})`);
  return value;
}
