import { chmod, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '@herald/core';
import { checkCurveKey, generateKeyPair, type CurveKeyPair } from '@herald/transport';

/**
 * CURVE keys of a production cluster, one pair per process, in one directory:
 *
 *   <keysDir>/<id>.key   {"publicKey","secretKey"} (mode 0600): the process's own pair
 *   <keysDir>/<id>.pub   its public key (mode 0600 too: only the Herald user reads the directory):
 *                        servers admit exactly the keys with a .pub here, and clients learn each server's key from it
 *
 * `herald keys` writes them; copy <id>.key only to the host that runs <id>.
 */
export async function writeKeys(keysDir: string, ids: readonly string[]): Promise<CurveKeyPair[]> {
  await mkdir(keysDir, { recursive: true, mode: 0o700 });
  await chmod(keysDir, 0o700);
  const pairs: CurveKeyPair[] = [];
  for (const id of ids) {
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(id))
      throw new ConfigError('--id', `process id ${JSON.stringify(id)} must be letters, digits, _ . -`);
    const pair = generateKeyPair();
    const keyFile = join(keysDir, `${id}.key`);
    await writeFile(keyFile, JSON.stringify(pair) + '\n', { mode: 0o600 });
    await chmod(keyFile, 0o600);
    const pubFile = join(keysDir, `${id}.pub`);
    await writeFile(pubFile, pair.publicKey + '\n', { mode: 0o600 });
    await chmod(pubFile, 0o600);
    pairs.push(pair);
  }
  return pairs;
}

export async function readKeyPair(keysDir: string, id: string): Promise<CurveKeyPair> {
  const file = join(keysDir, `${id}.key`);
  let parsed: Partial<CurveKeyPair>;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8')) as Partial<CurveKeyPair>;
  } catch (error) {
    throw new ConfigError(
      'curve.keysDir',
      `cannot read ${file} (run: herald keys --dir ${keysDir} ${id}): ${(error as Error).message}`,
    );
  }
  // The file may hold any JSON (null, a number, objects as fields): checkCurveKey takes the fields as they are.
  const { publicKey, secretKey } = parsed ?? {};
  return { publicKey: checkCurveKey('curve.keysDir', publicKey), secretKey: checkCurveKey('curve.keysDir', secretKey) };
}

export async function readPublicKey(keysDir: string, id: string): Promise<string> {
  const file = join(keysDir, `${id}.pub`);
  try {
    return checkCurveKey('curve.keysDir', (await readFile(file, 'utf8')).trim());
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError('curve.keysDir', `cannot read ${file}: ${(error as Error).message}`);
  }
}

/** Every public key in the directory: the allow-list of each server. */
export async function allowedKeys(keysDir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(keysDir);
  } catch (error) {
    throw new ConfigError('curve.keysDir', `cannot read ${keysDir}: ${(error as Error).message}`);
  }
  const ids = names.filter((n) => n.endsWith('.pub')).map((n) => n.slice(0, -4));
  return Promise.all(ids.map((id) => readPublicKey(keysDir, id)));
}
