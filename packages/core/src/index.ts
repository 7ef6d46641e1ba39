export * from './accounts.ts';
export * from './errors.ts';
export * from './housekeeping.ts';
export * from './password-hasher.ts';
export type * from './ports.ts';
export * from './rate-limits.ts';
export * from './schemas.ts';
export * from './system.ts';
