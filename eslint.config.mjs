// ESLint, run by `npm run lint` after the build: the type-aware rules of typescript-eslint
// that catch what tsc does not (a promise nobody awaits, an async callback where a sync one
// is expected, a switch that forgets a case of a union). Layout is Prettier's job
// (.prettierrc.json): eslint-config-prettier, last, turns off every rule that would fight
// its line breaks (no-unexpected-multiline among the recommended ones).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/',
      '**/dist/',
      '**/build/',
      'coverage/',
      'bench/out/',
      '**/*.js',
      '**/*.cjs',
      '**/*.mjs',
      '**/*.mts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        // One program for the Node code and its tests (tsconfig.test.json covers every
        // package's src and test), one for the console's browser code (DOM, JSX).
        project: ['./tsconfig.test.json', './packages/console/tsconfig.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      // tsc already reports unused locals and parameters (noUnusedLocals, noUnusedParameters).
      '@typescript-eslint/no-unused-vars': 'off',
      // Herald writes `xs[i]!` on purpose: it marks a read the code knows is in range, as it
      // would under noUncheckedIndexedAccess; the rule calls every one of them unnecessary.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      // An adapter implements a Promise-returning port with an async method that may not
      // await: a throw then becomes a rejection, which is what callers of the port handle.
      '@typescript-eslint/require-await': 'off',
      // `string | 'exists'` documents the literals a caller should expect; the rule calls
      // the union redundant.
      '@typescript-eslint/no-redundant-type-constituents': 'off',
      // String(value) of an `unknown` from the wire or a catch is deliberate: any text will do
      // for a message. Template literals are still checked (restrict-template-expressions).
      '@typescript-eslint/no-base-to-string': 'off',
    },
  },
  {
    // Tests parse JSON answers and reach into fakes: `any` there is the point, and
    // expect(fake.method) passes a method without calling it.
    files: ['**/*.test.ts', '**/*.test.tsx', '**/*.test-util.ts', '**/test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/no-require-imports': 'off',
      // A test rethrows what a fake captured (unknown) or wraps it in a clearer message.
      '@typescript-eslint/only-throw-error': 'off',
      '@typescript-eslint/prefer-promise-reject-errors': 'off',
      '@typescript-eslint/await-thenable': 'off',
      'preserve-caught-error': 'off',
    },
  },
  {
    // React ignores what an event handler returns, and the console's async handlers report
    // their own errors on the page; promises passed anywhere else are still checked.
    files: ['packages/console/src/**/*.tsx'],
    rules: {
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
    },
  },
  prettier,
);
