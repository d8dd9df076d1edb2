import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '@herald/core';
import { makeTempDir, type TempDir } from '@herald/testing';
import { readKeyPair } from './keys';

describe('readKeyPair', () => {
  let dir: TempDir;
  beforeEach(async () => {
    dir = await makeTempDir('herald-keys-');
  });
  afterEach(async () => {
    await dir.remove();
  });

  // Found by keys.fuzz.test.ts: these files threw TypeError (String() of the field, or a field of null)
  // instead of the ConfigError that names curve.keysDir.
  it.each([
    [
      'a field with no string form',
      '{"publicKey":{"toString":1,"valueOf":1}}',
      'must be a 40-character Z85 CURVE key (got object)',
    ],
    ['JSON null', 'null', 'must be a 40-character Z85 CURVE key (got undefined)'],
  ])('reports %s as a ConfigError naming curve.keysDir', async (_name, content, message) => {
    await writeFile(join(dir.path, 'p.key'), content);
    const error = await readKeyPair(dir.path, 'p').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ setting: 'curve.keysDir', message: `config curve.keysDir: ${message}` });
  });
});
