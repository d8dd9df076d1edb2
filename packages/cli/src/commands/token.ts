import { join } from 'node:path';
import { checkTokenName, checkTokenScope, type AccessToken } from '@herald/core/access';
import { compileConfig, type HeraldConfig, type HeraldOptions } from '@herald/core/config';
import type { AccessStore } from '@herald/core/ports';
import { newTokenText } from '@herald/interface';
import { LevelAccessStore } from '@herald/store-level';
import { mysqlOptions } from '@herald/production';
import { MySqlAccessStore } from '@herald/store-mysql';

/**
 * `herald token create|revoke`: API tokens written straight to the configured
 * access store, for when the API cannot be used yet (the first admin of a
 * production cluster) or any more (an admin token leaked). The embedded store
 * (<dataDir>/access) is one process's: stop `herald dev` first; while it runs,
 * use the API (POST/DELETE /api/v1/tokens) instead.
 */
async function openAccess(config: HeraldConfig): Promise<AccessStore> {
  if (config.production === null) return LevelAccessStore.open(join(config.dataDir, 'access'));
  const { mysql } = config.production;
  return MySqlAccessStore.open(mysqlOptions(mysql, 1));
}

async function withAccess<T>(options: HeraldOptions, fn: (access: AccessStore) => Promise<T>): Promise<T> {
  const access = await openAccess(compileConfig(options));
  try {
    return await fn(access);
  } finally {
    await access.close();
  }
}

export interface TokenCreateArgs {
  role: string;
  name: string;
  /** Comma-separated account ids (operators). */
  accounts?: string;
}

/** Makes a token and prints it, once, on stdout (what it is goes to stderr, so `$(herald token create ...)` captures the token alone). */
export async function runTokenCreate(options: HeraldOptions, args: TokenCreateArgs): Promise<AccessToken> {
  const name = checkTokenName(args.name);
  const accounts = (args.accounts ?? '')
    .split(',')
    .map((account) => account.trim())
    .filter((account) => account !== '');
  const scope = checkTokenScope(args.role, accounts);
  const text = newTokenText();
  const token = await withAccess(options, (access) =>
    access.createToken({ id: text.tokenId, name, ...scope, hash: text.hash, createdAt: Date.now() }),
  );
  process.stderr.write(
    `herald: ${token.role} token ${token.id} '${token.name}'${token.accounts.length > 0 ? ` for ${token.accounts.join(', ')}` : ''}; it is shown once, keep it:\n`,
  );
  process.stdout.write(`${text.token}\n`);
  return token;
}

/** Revokes a token by id: it stops working at once on a running embedded process's next start, within auth.tokenCacheMs elsewhere. */
export async function runTokenRevoke(options: HeraldOptions, id: string): Promise<AccessToken> {
  const token = await withAccess(options, (access) => access.revokeToken(id, Date.now()));
  process.stdout.write(
    `herald: token ${token.id} '${token.name}' revoked at ${new Date(token.revokedAt!).toISOString()}\n`,
  );
  return token;
}
