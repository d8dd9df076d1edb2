/**
 * Import rules, checked by `npm run lint` (and so by CI):
 * - no import cycles, inside a package or across packages;
 * - no deep imports: another package is imported only by its name
 *   (@herald/x), never by a path into it (@herald/x/src/..., ../../x/src);
 * - core is pure: it imports no other Herald package and no I/O module.
 */
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
      comment: 'Import another package by its name only; its index.ts is its public surface.',
      severity: 'error',
      from: { path: '^packages/([^/]+)/' },
      to: { path: '^packages/([^/]+)/', pathNot: ['^packages/$1/', '^packages/[^/]+/(src|dist)/index\\.(ts|js|d\\.ts)$'] },
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
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['types', 'require', 'default'], extensions: ['.ts', '.tsx', '.js', '.d.ts'] },
  },
};
