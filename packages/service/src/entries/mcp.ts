// @sl-accounts/service/mcp: the sources in packages/mcp/src (ADR 0059).
export * from '../../../mcp/src/index.ts';
