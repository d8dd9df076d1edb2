/**
 * Builds every package (tsc -b: incremental, quick when nothing changed)
 * before the tests, so tests that run the compiled `herald` command never
 * see a stale build.
 */
const { execFileSync } = require('node:child_process');

module.exports = async () => {
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-b'], { cwd: __dirname, stdio: 'inherit' });
};
