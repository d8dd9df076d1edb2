import { readFile } from 'node:fs/promises';
import { ConfigError } from '@herald/core';
import type { HeraldOptions } from '@herald/core/config';

/** Reads a JSON config file. A missing or unparsable file is a ConfigError naming it. */
export async function loadOptions(path: string | undefined): Promise<HeraldOptions> {
  if (path === undefined) return {};
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError('--config', `cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text) as HeraldOptions;
  } catch (error) {
    throw new ConfigError('--config', `${path} is not valid JSON: ${(error as Error).message}`);
  }
}

/**
 * The environment's part of the options: HERALD_ADMIN_TOKEN, when set, is
 * `auth.bootstrapAdminToken` (over the file's), so the first admin token of a
 * cluster need never be written into a config file.
 */
export function withEnvironment(options: HeraldOptions, env: NodeJS.ProcessEnv = process.env): HeraldOptions {
  const token = env.HERALD_ADMIN_TOKEN;
  if (token === undefined || token === '') return options;
  return { ...options, auth: { ...options.auth, bootstrapAdminToken: token } };
}
