/**
 * `pnpm lint`'s check for import cycles, runtime and type-only alike (ESLint's import-x/no-cycle
 * sees runtime cycles only: it skips every `import type`). Workspace packages are followed into
 * their sources (the `source` export condition), so a cycle across packages counts too.
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
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['source', 'import', 'types', 'default'], extensions: ['.ts', '.js'] },
  },
};
