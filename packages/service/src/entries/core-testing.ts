// @sl-accounts/service/core/testing: the sources in packages/core/src (ADR 0059).
export * from '../../../core/src/testing.ts';
