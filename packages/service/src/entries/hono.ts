// @sl-accounts/service/hono: the sources in packages/http-hono/src (ADR 0059).
export * from '../../../http-hono/src/index.ts';
