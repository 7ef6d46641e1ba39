// The contract suite an adapter runs from its own tests, and what it gives the suite.
export { testStoreContract, type OpenStore, type StoreUnderTest } from './contract.ts';
export type { StoreInspection } from './current-store.ts';
// The test matrix (TEST_STORES): which stores a run covers, and why one is skipped.
export { selectedStores, skipWarning, STORE_KINDS, testStore, testStores, type StoreKind, type StoreLocation, type TestStore } from './test-stores.ts';
