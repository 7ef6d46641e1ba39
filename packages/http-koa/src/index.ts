export * from './app.ts';
export * from './config.ts';
export { discoveryRoutes, type DiscoveryOptions } from './discovery/index.ts';
export * from './error-response.ts';
export * from './session-cookie.ts';
