// @sl-accounts/service/http/examples: the sources in packages/http/src (ADR 0059).
export * from '../../../http/src/examples.ts';
