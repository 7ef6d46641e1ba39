export { testStoreContract, type OpenedStore, type OpenStore, type StoreInspection } from './contract.ts';
export { selectedStores, skipWarning, STORE_KINDS, testStore, testStores, type StoreKind, type StoreLocation, type TestStore } from './test-stores.ts';
