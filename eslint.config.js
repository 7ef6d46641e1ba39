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
    // The core stays framework-free: zod, ipaddr.js, lru-cache (the session cache) and node built-ins only (no transport's: node:http and co).
    files: ['packages/core/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^(?!\\./|node:|zod$|ipaddr\\.js$|lru-cache$)', message: 'packages/core depends on zod, ipaddr.js, lru-cache and node built-ins only.' },
            { group: ['node:http', 'node:https', 'node:http2'], message: 'packages/core knows no HTTP.' },
          ],
        },
      ],
    },
  },
  {
    // The HTTP contract, the discovery documents and the MCP endpoint know no framework and no store.
    files: ['packages/discovery/src/**/*.ts', 'packages/mcp/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['koa', '@koa/*', 'pg', 'kysely', 'kysely/*', '@electric-sql/*', '@sl-accounts/store-*', '@sl-accounts/server', '@sl-accounts/http-koa'], message: 'http, discovery and mcp depend on core (and their SDKs) only: no framework, no store.' },
            // The docs page is given to discovery (its `docsPage` option), so that neither installs Scalar.
            { group: ['@scalar/*', '@sl-accounts/docs-page'], message: 'discovery and mcp install no Scalar: the docs page is @sl-accounts/docs-page, given as the docsPage option.' },
          ],
        },
      ],
    },
  },
  {
    // The docs page knows no framework and no store either.
    files: ['packages/docs-page/src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['koa', '@koa/*', 'pg', 'kysely', 'kysely/*', '@electric-sql/*', '@sl-accounts/store-*', '@sl-accounts/server', '@sl-accounts/http-koa', '@sl-accounts/mcp'], message: 'the docs page depends on discovery, http and Scalar only: no framework, no store.' }] }],
    },
  },
  {
    // The contract alone: the discovery documents and Scalar are a package of their own, which it never imports.
    files: ['packages/http/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['koa', '@koa/*', 'pg', 'kysely', 'kysely/*', '@electric-sql/*', '@sl-accounts/*', '!@sl-accounts/core', '@scalar/*', '@modelcontextprotocol/*'], message: 'http is the contract alone: it depends on core only (discovery and mcp depend on it, not the other way).' }] },
      ],
    },
  },
  {
    // The composed service takes its store and its docs page as options: it installs neither, nor a framework.
    files: ['packages/service/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['koa', '@koa/*', 'pg', 'kysely', 'kysely/*', '@electric-sql/*', '@sl-accounts/store-*', '@sl-accounts/server', '@sl-accounts/http-*', '@sl-accounts/docs-page', '@sl-accounts/mail-smtp', '@scalar/*'], message: 'the service is composed from what it is given: no framework, no store, no docs page, no SMTP.' }] },
      ],
    },
  },
  {
    // A host adapter knows the contract, never a store; only packages/server picks one.
    files: ['packages/http-koa/src/**/*.ts', 'packages/http-node/src/**/*.ts', 'examples/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['pg', 'kysely', 'kysely/*', '@electric-sql/*', '@sl-accounts/store-*'], message: 'host adapters never depend on a store; packages/server is the one place that picks one.' }] }],
    },
  },
);
