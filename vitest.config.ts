import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['**/node_modules/**', 'test/bench/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
