// Lint: typescript-eslint's recommended rules over the sources, tests, benchmarks and scripts.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', '.tmp/', 'src/db/schema.generated.ts', 'test/browser/screenshots/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // Refused outside the tests: the few deliberate ones (Kysely's Migrator and Dialect signatures, pageOfRows's
      // any-table builder) carry an eslint-disable comment that says why.
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // Tests read JSON answers, which are untyped by nature.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The docs page's own script runs in the browser.
    files: ['src/modules/api-docs/*.browser.js'],
    languageOptions: { globals: { window: 'readonly', document: 'readonly', URLSearchParams: 'readonly' } },
  },
)
