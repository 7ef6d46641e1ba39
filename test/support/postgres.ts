/**
 * Moved to `@sl/store-postgres/testing`; this re-export keeps the suites here working until they
 * import it from there.
 */
export * from '@sl/store-postgres/testing';
