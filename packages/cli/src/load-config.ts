import { readFile } from 'node:fs/promises';
import { ConfigError, type HeraldOptions } from '@herald/core';

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
