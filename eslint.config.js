// Lint: typescript-eslint's recommended rules over the sources, tests, benchmarks and scripts.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', '.tmp/', 'src/db/schema.generated.ts', 'test/browser/screenshots/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // Reported in the service's code until the remaining ones (mostly Kysely<any> in shared helpers) are typed.
      '@typescript-eslint/no-explicit-any': 'warn',
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
