export { createApp, serviceMiddleware, type KoaServiceOptions } from './app.ts';
