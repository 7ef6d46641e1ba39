export * from './postgres-store.ts';
export { describeDatabaseError } from './unavailable.ts';
