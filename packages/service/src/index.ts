export { createService, type Service, type ServiceOptions, type ServiceStore } from './service.ts';
export { logMailer, type MailOptions } from './mail.ts';
export { SERVICE_OPTION_NAMES } from './options.ts';
