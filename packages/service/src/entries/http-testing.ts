// @sl-accounts/service/http/testing: the sources in packages/http/src (ADR 0059).
export * from '../../../http/src/testing.ts';
