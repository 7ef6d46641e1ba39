export { testStoreContract, type OpenedStore, type OpenStore } from './contract.ts';
export type { StoreInspection } from './current-store.ts';
export { selectedStores, skipWarning, STORE_KINDS, testStore, testStores, type StoreKind, type StoreLocation, type TestStore } from './test-stores.ts';
