/**
 * `pnpm lint`'s dependency rules: no import cycle, runtime or type-only alike (ESLint's import-x/no-cycle
 * sees runtime cycles only: it skips every `import type`). Workspace packages are followed into
 * their sources (the `source` export condition), so a cycle across packages counts too. And a
 * package's tests import nothing from the repository's test/.
 */
export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle (runtime or type): move what both sides need into a module of its own.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'package-tests-stay-in-their-package',
      severity: 'error',
      comment: "A package's tests run from the package: what they share with other suites comes from a package entry (a /testing subpath), never from the repository's test/.",
      from: { path: '^packages/[^/]+/test/' },
      to: { path: '^test/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['source', 'import', 'types', 'default'], extensions: ['.ts', '.js'] },
  },
};
