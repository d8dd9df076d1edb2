/**
 * Import rules, checked by `npm run lint` (and so by CI):
 * - no import cycles, inside a package or across packages;
 * - no deep imports: another package is imported only through an entry point
 *   its package.json `exports` declares (@herald/x, and core's areas such as
 *   @herald/core/task), never by any other path into it (@herald/core/task/model,
 *   @herald/x/src/..., ../../x/src);
 * - core is pure: it imports no other Herald package and no I/O module.
 */
const fs = require('fs');
const path = require('path');

/**
 * The files behind every declared entry point, as regexes on the resolved path: each
 * `exports` target (dist/<area>/index.js, .d.ts) and the source it is built from
 * (src/<area>/index.ts). Read from the package.json files, so declaring an entry point
 * there is all it takes to allow it here.
 */
function entryPointFiles() {
  const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const files = [];
  for (const dir of fs.readdirSync(path.join(__dirname, 'packages'))) {
    const manifest = path.join(__dirname, 'packages', dir, 'package.json');
    if (!fs.existsSync(manifest)) continue;
    const exportsField = JSON.parse(fs.readFileSync(manifest, 'utf8')).exports ?? {};
    for (const entry of Object.values(exportsField)) {
      for (const target of typeof entry === 'string' ? [entry] : Object.values(entry)) {
        const built = path.posix.join('packages', dir, target);
        const source = built.replace(/^(packages\/[^/]+)\/dist\/(.*)\.(d\.ts|js)$/, '$1/src/$2.ts');
        files.push(`^${escape(built)}$`, `^${escape(source)}$`);
      }
    }
  }
  return [...new Set(files)];
}

module.exports = {
  forbidden: [
    { name: 'no-cycles', severity: 'error', from: {}, to: { circular: true } },
    {
      name: 'no-unresolvable',
      comment: 'An import that does not resolve, e.g. @herald/x/src/y, which the package exports map refuses.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'no-deep-imports',
      comment: 'Import another package only through an entry point its package.json exports declares.',
      severity: 'error',
      from: { path: '^packages/([^/]+)/' },
      to: { path: '^packages/([^/]+)/', pathNot: ['^packages/$1/', ...entryPointFiles()] },
    },
    {
      name: 'no-relative-imports-across-packages',
      comment: 'A relative path into another package (../../x/src/index) skips its exports map: use its name.',
      severity: 'error',
      from: { path: '^packages/([^/]+)/' },
      to: { dependencyTypes: ['local'], path: '^packages/([^/]+)/', pathNot: '^packages/$1/' },
    },
    {
      name: 'core-is-pure',
      severity: 'error',
      from: { path: '^packages/core/' },
      to: { dependencyTypes: ['core'], pathNot: ['^(node:)?zlib$'] },
    },
    {
      name: 'core-depends-on-nothing',
      severity: 'error',
      from: { path: '^packages/core/' },
      to: { path: '^packages/(?!core/)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)dist/' },
    tsConfig: { fileName: 'tsconfig.base.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['types', 'require', 'default'],
      extensions: ['.ts', '.tsx', '.js', '.d.ts'],
    },
  },
};
