import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { makeTempDir } from './temp-dir';

describe('makeTempDir', () => {
  it('creates a fresh directory under os.tmpdir() and removes it with its contents', async () => {
    const a = await makeTempDir('herald-test-');
    const b = await makeTempDir('herald-test-');
    expect(a.path).not.toBe(b.path);
    expect(dirname(a.path)).toBe(tmpdir());
    expect(basename(a.path).startsWith('herald-test-')).toBe(true);
    await writeFile(join(a.path, 'file'), 'x');
    await a.remove();
    await a.remove();
    await b.remove();
    expect(existsSync(a.path)).toBe(false);
    expect(existsSync(b.path)).toBe(false);
  });
});
