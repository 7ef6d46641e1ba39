// @sl-accounts/service/http-node: the sources in packages/http-node/src (ADR 0059).
export * from '../../../http-node/src/index.ts';
