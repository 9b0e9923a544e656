// Lint rules the code passes: typescript-eslint's recommended set everywhere, and for the product
// code (what ships: core, lib, plugins, storage, cli, index.ts) a curated set of type-checked rules
// that need the TypeScript program (parserOptions.projectService). Unused arguments keep their
// place in a signature when named with a leading underscore.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

// What ships, the web app's sources (plugins/web/app/src) included. Tests, benchmarks, scripts and
// examples are linted without type information: it would double the lint time for rules that
// guard the product's runtime behaviour.
const product = ['index.ts', 'core/**/*.ts', 'lib/**/*.ts', 'plugins/**/*.ts', 'storage/**/*.ts', 'cli/**/*.ts']

export default tseslint.config(
  { ignores: ['node_modules/**', 'plugins/web/dist/**', 'coverage/**', 'dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      // No `any` anywhere: JSON from outside is `unknown` narrowed by a schema or a guard. The few
      // in tests (an untyped harness reply, a deliberately wrong input) carry a disable comment with
      // the reason.
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-control-regex': 'off',
      // TypeScript checks names; the few .mjs scripts run under Node.
      'no-undef': 'off',
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  {
    files: product,
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Promises: none dropped on the floor, none handed where a void callback is expected, no await of a non-promise.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // The rest of the type-checked recommended set that the code passes as is.
      '@typescript-eslint/no-array-delete': 'error',
      '@typescript-eslint/no-base-to-string': 'error',
      '@typescript-eslint/no-duplicate-type-constituents': 'error',
      '@typescript-eslint/no-for-in-array': 'error',
      '@typescript-eslint/no-implied-eval': 'error',
      '@typescript-eslint/no-redundant-type-constituents': 'error',
      '@typescript-eslint/no-unsafe-enum-comparison': 'error',
      '@typescript-eslint/no-unsafe-unary-minus': 'error',
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      '@typescript-eslint/restrict-plus-operands': 'error',
      '@typescript-eslint/restrict-template-expressions': 'error',
    },
  },
  {
    // lib/ is pure shared code: it never reaches into the core, a plugin or storage (docs/architecture.md).
    files: ['lib/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^(\\.\\./)+(core|plugins|storage)/', message: 'lib/ holds pure code: no import of core/, plugins/ or storage/' }] },
      ],
    },
  },
)
