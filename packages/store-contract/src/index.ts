/**
 * The store contract suite: every store adapter runs it from its own tests (vitest), and the test
 * matrix that says which stores a run covers (`TEST_STORES`) and why one is skipped.
 */

// The suite, and what an adapter gives it.
export { testStoreContract, type OpenStore, type StoreUnderTest } from './contract.ts';
export type {
  StoreInspection,
} from './current-store.ts';

// The test matrix.
export {
  selectedStores,
  skipWarning,
  STORE_KINDS,
  testStore,
  testStores,
  type StoreKind,
  type StoreLocation,
  type TestStore,
} from './test-stores.ts';
