// Lint: typescript-eslint's recommended rules over the sources, tests, benchmarks and scripts.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', '.tmp/', 'dist/', 'src/db/schema.generated.ts', 'test/browser/screenshots/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // The plain JavaScript that node runs before any build: the command line's entry and the build itself.
    files: ['bin/**/*.js', 'scripts/**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  {
    rules: {
      // Refused outside the tests: the few deliberate ones (Kysely's Migrator and Dialect signatures, pageOfRows's
      // any-table builder) carry an eslint-disable comment that says why.
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // Type-aware rules that catch bugs: a promise nobody awaits, a promise where a callback's result is ignored,
    // awaiting what is not a promise, a switch that misses a case of its union.
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        // node:test's test() and describe() return promises the runner itself awaits.
        {
          allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite', 'before', 'after'] }],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
    },
  },
  {
    // Tests read JSON answers, which are untyped by nature.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The layering rules are read by dependency-cruiser as CommonJS.
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  {
    // The docs page's own script runs in the browser.
    files: ['src/modules/api-docs/*.browser.js'],
    languageOptions: { globals: { window: 'readonly', document: 'readonly', URLSearchParams: 'readonly' } },
  },
)
