/**
 * One jest run covers every package. Tests run against the TypeScript sources
 * (transpiled by ts-jest; the global setup builds first for the CLI tests); cross-package
 * imports resolve to each package's src/index.ts, the same public surface the
 * compiled package exports.
 */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/packages', '<rootDir>/bench', '<rootDir>/cgroup'],
  testMatch: ['**/src/**/*.test.ts', '**/test/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
  // Transpile only (isolatedModules): type checking is the build's job (tsc -b in global setup).
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.jest.json' }] },
  moduleNameMapper: {
    '^@herald/core/([a-z-]+)$': '<rootDir>/packages/core/src/$1/index.ts',
    '^@herald/([a-z-]+)$': '<rootDir>/packages/$1/src/index.ts',
  },
  globalSetup: '<rootDir>/jest.global-setup.js',
  globalTeardown: '<rootDir>/jest.global-teardown.js',
  testTimeout: 60000,
};
