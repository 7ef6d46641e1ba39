// @sl-accounts/service/http: the sources in packages/http/src (ADR 0059).
export * from '../../../http/src/index.ts';
