/**
 * The store contract suite: every store adapter runs it from its own tests (vitest), and the test
 * matrix that says which stores a run covers (`TEST_STORES`) and why one is skipped.
 */

// The suite, and what an adapter gives it.
export {
  /** Runs every case of the store contract against the stores `open` makes, one per case. */
  testStoreContract,
  /** Opens a fresh, empty, migrated store for one case. */
  type OpenStore,
  /** A store as the suite uses it: the ports, the inspection hook and a close that removes what it kept. */
  type StoreUnderTest,
} from './contract.ts';
export type {
  /** What the suite may read back that no port offers (stored contact messages, outbox rows). */
  StoreInspection,
} from './current-store.ts';

// The test matrix.
export {
  /** Which store kinds this run covers (`TEST_STORES`), and whether the list was named explicitly. */
  selectedStores,
  /** The one line that says a store of the default selection is skipped, and why. */
  skipWarning,
  /** Every store kind, in the order runs go through them. */
  STORE_KINDS,
  /** A store kind for this run: its title, or its skip reason when it cannot run. */
  testStore,
  /** `testStore` for every kind. */
  testStores,
  /** `memory`, `pglite` or `postgres`. */
  type StoreKind,
  /** Where a store's server is, or why it is missing. */
  type StoreLocation,
  /** A store kind as a run sees it: its title and, when it cannot run, why. */
  type TestStore,
} from './test-stores.ts';
