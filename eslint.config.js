import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '.data/**', 'coverage/**', 'test/bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', performance: 'readonly', fetch: 'readonly', URL: 'readonly', Response: 'readonly', Request: 'readonly', Headers: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // The core stays framework-free: zod and node built-ins only.
    files: ['packages/core/src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['koa', '@koa/*', 'pg', 'kysely', 'kysely/*', '@electric-sql/*', 'pino', 'node:http', '@sl/*'], message: 'packages/core depends on zod and node built-ins only.' }] }],
    },
  },
);
