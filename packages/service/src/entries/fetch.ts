// @sl-accounts/service/fetch: the sources in packages/http-fetch/src (ADR 0059).
export * from '../../../http-fetch/src/index.ts';
