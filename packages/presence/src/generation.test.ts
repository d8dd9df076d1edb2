import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir, type TempDir } from '@herald/testing';
import { bitmapGeneration } from './generation';

let dir: TempDir;
beforeEach(async () => (dir = await makeTempDir('herald-generation-')));
afterEach(async () => dir.remove());

describe('bitmapGeneration', () => {
  it('keeps the generation of a bitmap that existed, and makes a new one for a new bitmap', async () => {
    const file = join(dir.path, 'online.bitmap');
    const first = await bitmapGeneration(file, false);
    expect(first).toMatch(/^[0-9a-f]{16}$/);
    expect(await bitmapGeneration(file, true)).toBe(first);
    const second = await bitmapGeneration(file, false);
    expect(second).not.toBe(first);
    expect((await readFile(`${file}.generation`, 'utf8')).trim()).toBe(second);
  });

  it('makes a new generation when the generation file is missing or damaged', async () => {
    const file = join(dir.path, 'online.bitmap');
    const fresh = await bitmapGeneration(file, true); // bitmap existed, no generation file
    await writeFile(`${file}.generation`, 'not hex');
    const replaced = await bitmapGeneration(file, true);
    expect(replaced).toMatch(/^[0-9a-f]{16}$/);
    expect(replaced).not.toBe(fresh);
  });
});
