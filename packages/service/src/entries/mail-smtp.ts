// @sl-accounts/service/mail-smtp: the sources in packages/mail-smtp/src (ADR 0059).
export * from '../../../mail-smtp/src/index.ts';
