export { createApp, requireSession, serviceErrors, serviceMiddleware, serviceRouter, wellKnownRouter, type KoaServiceOptions } from './app.ts';
