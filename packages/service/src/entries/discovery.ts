// @sl-accounts/service/discovery: the sources in packages/discovery/src (ADR 0059).
export * from '../../../discovery/src/index.ts';
