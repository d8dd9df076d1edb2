/**
 * The shell scripts under deploy/ parse: `bash -n` on each. The README's test command is one of
 * them (deploy/test-all.sh), so a broken comment line there would stop CI before any test ran.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';

const DEPLOY = path.resolve(__dirname, '../../../deploy');
const scripts = readdirSync(DEPLOY).filter((name) => name.endsWith('.sh'));

describe('deploy scripts', () => {
  it('finds the scripts', () => {
    expect(scripts).toEqual(expect.arrayContaining(['test-all.sh', 'local-cluster.sh', 'netns-cluster.sh']));
  });

  it.each(scripts)('%s parses (bash -n)', (name) => {
    expect(() => execFileSync('bash', ['-n', path.join(DEPLOY, name)], { stdio: 'pipe' })).not.toThrow();
  });
});
