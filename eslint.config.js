import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '.data/**', 'coverage/**', 'test/bench/results/**', '**/dist/**', '**/dist.*/**'] },
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
    // The core stays framework-free: zod, lru-cache (the session cache) and node built-ins only.
    files: ['packages/core/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['koa', '@koa/*', 'pg', 'kysely', 'kysely/*', '@electric-sql/*', 'pino', 'node:http', '@sl-accounts/*', '@modelcontextprotocol/*'], message: 'packages/core depends on zod, lru-cache and node built-ins only.' },
            // Anything else that is not relative, a node built-in, zod or lru-cache.
            { regex: '^(?!\\.|node:|zod$|zod/|lru-cache$)', message: 'packages/core depends on zod, lru-cache and node built-ins only.' },
          ],
        },
      ],
    },
  },
  {
    // The HTTP contract and the MCP endpoint know no framework and no store.
    files: ['packages/http/src/**/*.ts', 'packages/mcp/src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['koa', '@koa/*', 'pg', 'kysely', 'kysely/*', '@electric-sql/*', '@sl-accounts/store-*', '@sl-accounts/server', '@sl-accounts/http-koa'], message: 'http and mcp depend on core (and their SDKs) only: no framework, no store.' }] }],
    },
  },
  {
    // A host adapter knows the contract, never a store; only packages/server picks one.
    files: ['packages/http-koa/src/**/*.ts', 'examples/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['pg', 'kysely', 'kysely/*', '@electric-sql/*', '@sl-accounts/store-*'], message: 'host adapters never depend on a store; packages/server is the one place that picks one.' }] }],
    },
  },
);
