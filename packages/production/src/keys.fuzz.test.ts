/**
 * Fuzz tests (fast-check) of the CURVE key-file loaders: readKeyPair,
 * readPublicKey and allowedKeys read files an operator copied around, so for
 * any file content they return checked Z85 keys or throw ConfigError naming
 * curve.keysDir; keys that `herald keys` wrote read back as written.
 *
 * Runs per property: HERALD_FUZZ_RUNS (default below; each run writes files,
 * so it is smaller than the pure decoders'). A failure prints the property's
 * `seed` and `path`; replay exactly that case by passing them to the failing
 * assert: fc.assert(property, { seed: 1234, path: '5:2:0' }). docs/fuzzing.md.
 */
import * as fc from 'fast-check';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '@herald/core';
import { makeTempDir, type TempDir } from '@herald/testing';
import { allowedKeys, readKeyPair, readPublicKey, writeKeys } from './keys';

const RUNS = Number(process.env.HERALD_FUZZ_RUNS) || 60;
/** Each run is a few small file reads; a run still pending after this is a hang. */
const settings = { numRuns: RUNS, timeout: 5000 };

const Z85 = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#';
/** 40 Z85 characters: mostly a key, sometimes a group above 2^32 - 1. */
const z85Key = fc.array(fc.constantFrom(...Z85), { minLength: 40, maxLength: 40 }).map((chars) => chars.join(''));
const keyField = fc.oneof(
  z85Key,
  fc.string({ maxLength: 45 }),
  fc.jsonValue({ maxDepth: 2 }),
  fc.constant({ toString: 1, valueOf: 1 }),
);
/** What a .key file may hold: JSON of the right shape with wrong fields, any JSON, any text, any bytes. */
const keyFile = fc.oneof(
  fc.record({ publicKey: keyField, secretKey: keyField }, { requiredKeys: [] }).map((pair) => JSON.stringify(pair)),
  fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)),
  fc.string({ maxLength: 80 }),
  fc.uint8Array({ maxLength: 80 }).map((bytes) => Buffer.from(bytes)),
);
const pubFile = fc.oneof(
  z85Key.map((key) => `${key}\n`),
  fc.string({ maxLength: 50 }),
  fc.uint8Array({ maxLength: 50 }).map((bytes) => Buffer.from(bytes)),
);

/** Awaits a loader; anything thrown but a ConfigError naming curve.keysDir escapes and fails the property. */
async function tryLoad<T>(load: Promise<T>): Promise<T | ConfigError> {
  try {
    return await load;
  } catch (error) {
    if (error instanceof ConfigError && error.setting === 'curve.keysDir') return error;
    throw error;
  }
}

function expectKey(key: unknown): void {
  expect(typeof key === 'string' && key.length === 40 && [...key].every((c) => Z85.includes(c))).toBe(true);
}

describe('CURVE key files, fuzzed', () => {
  let dir: TempDir;
  beforeAll(async () => {
    dir = await makeTempDir('herald-keys-fuzz-');
  });
  afterAll(async () => {
    await dir.remove();
  });

  it('readKeyPair returns two Z85 keys or throws ConfigError, whatever the .key file holds', async () => {
    await fc.assert(
      fc.asyncProperty(keyFile, async (content) => {
        await writeFile(join(dir.path, 'p.key'), content);
        const outcome = await tryLoad(readKeyPair(dir.path, 'p'));
        if (!(outcome instanceof ConfigError)) {
          expectKey(outcome.publicKey);
          expectKey(outcome.secretKey);
        }
      }),
      settings,
    );
  });

  it('readPublicKey and allowedKeys return Z85 keys or throw ConfigError, whatever the .pub files hold', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(pubFile, { minLength: 1, maxLength: 3 }), async (contents) => {
        const sub = await makeTempDir('herald-pub-fuzz-');
        try {
          await Promise.all(contents.map((content, i) => writeFile(join(sub.path, `p${i}.pub`), content)));
          const one = await tryLoad(readPublicKey(sub.path, 'p0'));
          if (!(one instanceof ConfigError)) expectKey(one);
          const all = await tryLoad(allowedKeys(sub.path));
          if (!(all instanceof ConfigError)) {
            expect(all).toHaveLength(contents.length);
            all.forEach(expectKey);
          }
        } finally {
          await sub.remove();
        }
      }),
      settings,
    );
  });

  it('reads back the keys writeKeys wrote', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.stringMatching(/^[A-Za-z0-9_.-]{1,64}$/), { minLength: 1, maxLength: 3 }),
        async (ids) => {
          const sub = await makeTempDir('herald-keys-rt-');
          try {
            const pairs = await writeKeys(sub.path, ids);
            for (const [i, id] of ids.entries()) {
              expect(await readKeyPair(sub.path, id)).toEqual(pairs[i]);
              expect(await readPublicKey(sub.path, id)).toBe(pairs[i]!.publicKey);
            }
            expect((await allowedKeys(sub.path)).sort()).toEqual(pairs.map((p) => p.publicKey).sort());
          } finally {
            await sub.remove();
          }
        },
      ),
      { ...settings, numRuns: Math.max(1, Math.ceil(RUNS / 4)) },
    );
  });
});
