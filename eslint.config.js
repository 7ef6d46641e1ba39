import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import jsdoc from 'eslint-plugin-jsdoc';
import { noStrayTags } from './scripts/no-stray-tags.ts';

/** Every web framework a host adapter may be written for: only its own adapter (and the examples, tests) import one. */
const FRAMEWORKS = ['koa', '@koa/*', 'express', 'fastify', 'hono', 'hono/*', '@hono/*', '@nestjs/*'];
/** The stores and their drivers: only the composition root (packages/server) picks one. */
const STORES = ['pg', 'kysely', 'kysely/*', '@electric-sql/*', '@sl-accounts/store-*'];

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
    // A doc comment's `@word` is a tag to TypeScript wherever white space precedes it, so prose that
    // names a package (`@koa/router`) without backticks ends the comment there in editors' hovers.
    // check-tag-names reads tags at the start of a line only (and passes names with a slash), so
    // docs/no-stray-tags reads every `@` as TypeScript does.
    plugins: { jsdoc, docs: { rules: { 'no-stray-tags': noStrayTags } } },
    settings: { jsdoc: { mode: 'typescript' } },
    rules: { 'jsdoc/check-tag-names': ['error', { typed: true }], 'docs/no-stray-tags': 'error' },
  },
  {
    // The core stays framework-free: zod, ipaddr.js, lru-cache (the session cache), the cryptography of the second factors
    // (otpauth for TOTP, @simplewebauthn/server for passkeys: no hand-written TOTP, CBOR or COSE), openid-client for identity
    // providers (no hand-written token or signature validation, ADR 55) and node built-ins only
    // (no transport's: node:http and co).
    // Relative imports stay inside src (use-cases/ reaches one level up, never two).
    files: ['packages/core/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!\\./|\\.\\./(?!\\.\\./)|node:|zod$|ipaddr\\.js$|lru-cache$|otpauth$|@simplewebauthn/server(/helpers)?$|openid-client$)',
              message: 'packages/core depends on zod, ipaddr.js, lru-cache, otpauth, @simplewebauthn/server, openid-client and node built-ins only.',
            },
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
            { group: [...FRAMEWORKS, ...STORES], message: 'discovery and mcp depend on core and http (and their SDKs) only: no framework, no store, no host adapter.' },
            { regex: '^@sl-accounts/(?!service/(core|http|discovery)(/|$))', message: 'discovery and mcp depend on core and http (and their SDKs) only: no framework, no store, no host adapter, no docs page.' },
            // The docs page is given to discovery (its `docsPage` option), so that neither installs Scalar.
            { group: ['@scalar/*'], message: 'discovery and mcp install no Scalar: the docs page is @sl-accounts/docs-page, given as the docsPage option.' },
          ],
        },
      ],
    },
  },
  {
    // The docs page knows no framework and no store either.
    files: ['packages/docs-page/src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: [...FRAMEWORKS, ...STORES], message: 'the docs page depends on discovery, http and Scalar only: no framework, no store.' }, { regex: '^@sl-accounts/(?!service/(core|http|discovery)(/|$))', message: 'the docs page depends on discovery, http and Scalar only: no framework, no store.' }] }],
    },
  },
  {
    // The contract alone: the discovery documents and Scalar are a package of their own, which it never imports.
    files: ['packages/http/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: [...FRAMEWORKS, ...STORES, '@scalar/*', '@modelcontextprotocol/*'], message: 'http is the contract alone: it depends on core only (discovery and mcp depend on it, not the other way; it takes the MCP endpoint by its structural type).' }, { regex: '^@sl-accounts/(?!service/core(/|$))', message: 'http is the contract alone: of ours it imports @sl-accounts/service/core only.' }] },
      ],
    },
  },
  {
    // The composed service takes its store and its docs page as options: it installs neither, nor a framework.
    files: ['packages/service/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: [...FRAMEWORKS, ...STORES, '@scalar/*'], message: 'the service is composed from what it is given: no framework, no store, no docs page, no SMTP.' }, { regex: '^@sl-accounts/(server|http-|docs-page)|^@sl-accounts/service/(mail-smtp|fetch|http-node|hono)(/|$)', message: 'the service is composed from what it is given: no framework, no store, no docs page, no SMTP, no host adapter.' }] },
      ],
    },
  },
  // A host adapter knows the contract (and http-node's conversions) and its own framework: never a
  // store, the MCP SDK, the composed service or another adapter. It takes the service by its
  // structural type (`{ api }`), so an embedder's adapter installs none of them.
  ...[
    ['http-node', []],
    ['http-koa', ['koa', '@koa/*']],
    ['http-express', ['express']],
    ['http-fastify', ['fastify']],
    ['http-hono', ['hono', 'hono/*']],
    ['http-fetch', []],
  ].map(([name, own]) => ({
    files: [`packages/${name}/src/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: FRAMEWORKS.filter((f) => !own.includes(f)), message: `${name} knows ${own.length ? 'its own framework only' : 'node:http alone: Connect-style hosts take its middleware as it is'}.` },
            { group: [...STORES, '@scalar/*'], message: 'host adapters never depend on a store or on the composition: they take { api } (createService gives it); packages/server is the one place that picks a store.' },
            { regex: '^@sl-accounts/(server|docs-page)(/|$)|^@sl-accounts/service(/(discovery|mail-smtp)(/|$)|$)', message: 'host adapters never depend on a store or on the composition: they take { api } (createService gives it); packages/server is the one place that picks a store.' },
            { group: ['@sl-accounts/service/mcp', '@modelcontextprotocol/*'], message: 'host adapters never name MCP: the contract answers /mcp itself (createHttpApi({ mcp })).' },
            { group: ['@sl-accounts/http-koa', '@sl-accounts/http-express', '@sl-accounts/http-fastify', '@sl-accounts/service/hono', '@sl-accounts/service/fetch'], message: 'one adapter never imports another; what they share is in @sl-accounts/service/http-node.' },
          ],
        },
      ],
    },
  })),
  {
    // The examples are hosts: they pick no store and never name MCP (packages/server composes the service for them).
    files: ['examples/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: [...STORES, '@sl-accounts/service/mcp', '@modelcontextprotocol/*'], message: 'an example is a host: packages/server picks the store, and the contract answers /mcp.' }] }],
    },
  },
);
