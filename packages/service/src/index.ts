/** The account and contact service composed over a store, with no socket: mount `api` in any host. */
export { createService, type Service, type ServiceOptions, type ServiceStore } from './service.ts';
export { logMailer, type MailOptions } from './mail.ts';
