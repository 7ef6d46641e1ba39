export * from './app.ts';
export * from './config.ts';
export * from './error-response.ts';
export * from './session-cookie.ts';
