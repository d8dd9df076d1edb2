/**
 * One jest run covers every package. Tests run against the TypeScript sources
 * (transformed by swc), so `npm test` needs no build first; cross-package
 * imports resolve to each package's src/index.ts, the same public surface the
 * compiled package exports.
 */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/packages', '<rootDir>/bench'],
  testMatch: ['**/src/**/*.test.ts', '**/test/**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }] },
  moduleNameMapper: { '^@herald/([a-z-]+)$': '<rootDir>/packages/$1/src/index.ts' },
  globalSetup: '<rootDir>/jest.global-setup.js',
  testTimeout: 60000,
};
