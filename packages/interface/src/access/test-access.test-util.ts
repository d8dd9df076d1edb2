import { parseToken, type Role } from '@herald/core/access';
import { LevelAccessStore } from '@herald/store-level';
import { makeTempDir, TEST_ADMIN_TOKEN, type TempDir } from '@herald/testing';
import { hashTokenSecret, newTokenText } from './token-crypto';

/**
 * A real LevelAccessStore in a temp dir for the interface's tests, with the
 * test admin token (TEST_ADMIN_TOKEN) in it and a way to make more tokens.
 */
export interface TestAccess {
  access: LevelAccessStore;
  adminToken: string;
  /** A new token of `role` (operator: for `accounts`); answers its text. */
  token(role: Role, accounts?: string[], name?: string): Promise<string>;
  close(): Promise<void>;
}

export async function openTestAccess(): Promise<TestAccess> {
  const dir: TempDir = await makeTempDir('herald-interface-access-');
  const access = await LevelAccessStore.open(dir.path);
  const admin = parseToken(TEST_ADMIN_TOKEN)!;
  await access.createToken({
    id: admin.tokenId,
    name: 'test admin',
    role: 'admin',
    accounts: [],
    hash: hashTokenSecret(admin.secret),
    createdAt: 0,
  });
  return {
    access,
    adminToken: TEST_ADMIN_TOKEN,
    async token(role, accounts = [], name = `${role} ${accounts.join(',')}`) {
      const text = newTokenText();
      await access.createToken({ id: text.tokenId, name, role, accounts, hash: text.hash, createdAt: 1 });
      return text.token;
    },
    async close() {
      await access.close();
      await dir.remove();
    },
  };
}
