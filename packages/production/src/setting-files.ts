import { readFileSync } from 'node:fs';
import { ConfigError } from '@herald/core';

/**
 * Reading the files security settings name (CA and client certificates,
 * password and key files). The adapters read them when they connect, at
 * start, so a missing or unreadable file fails the start with one line
 * naming its setting. A failure shows the path and the system's reason
 * (ENOENT, EACCES), never the contents.
 */
export function readSettingFile(setting: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError(setting, `cannot read ${JSON.stringify(path)} (${code})`);
  }
}

/** A secret kept in a file: its UTF-8 text without one trailing newline; an empty one is an error. */
export function secretFromFile(setting: string, path: string): string {
  const secret = readSettingFile(setting, path)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  if (secret.length === 0) throw new ConfigError(setting, `${JSON.stringify(path)} is empty`);
  return secret;
}
