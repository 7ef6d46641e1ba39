// @sl-accounts/service/core: the sources in packages/core/src (ADR 0059).
export * from '../../../core/src/index.ts';
