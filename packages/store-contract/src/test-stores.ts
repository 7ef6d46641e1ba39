/**
 * The test matrix: which stores a test run covers, chosen with TEST_STORES, and why any of them
 * does not run. A store is never swapped for another: `postgres` is a real server, `pglite` is
 * embedded PGlite, `sqlite` a file on node:sqlite, and a title always says which one ran or why it was skipped.
 */

/** The stores tests can run on. */
export const STORE_KINDS = ['memory', 'pglite', 'postgres', 'sqlite'] as const;
/** One of STORE_KINDS. */
export type StoreKind = (typeof STORE_KINDS)[number];

/** Where a store runs (for titles), or why it cannot run here, saying what to start. */
export type StoreLocation = { readonly where: string } | { readonly missing: string };

/** One store of this run's matrix. */
export interface TestStore {
  readonly kind: StoreKind;
  /** Why the store does not run in this run; unset when it runs. */
  readonly skip?: string;
  /** The kind, with where it runs or why it is skipped, for suite titles. */
  readonly title: string;
}

/**
 * The kinds TEST_STORES selects: a comma list of STORE_KINDS; unset or empty selects all, and
 * `explicit` is false. Throws on a name it does not know.
 */
export function selectedStores(env: { readonly TEST_STORES?: string } = process.env): { readonly kinds: readonly StoreKind[]; readonly explicit: boolean } {
  const value = env.TEST_STORES;
  const names = (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (names.length === 0) return { kinds: STORE_KINDS, explicit: false };
  for (const name of names) {
    if (!(STORE_KINDS as readonly string[]).includes(name)) throw new Error(`TEST_STORES=${value}: unknown store "${name}"; use a comma list of ${STORE_KINDS.join(', ')}`);
  }
  return { kinds: STORE_KINDS.filter((kind) => names.includes(kind)), explicit: true };
}

/**
 * Decides whether `kind` runs in this test file. `locate` finds where it runs; memory, pglite and sqlite
 * need none, postgres must have one (e.g. `locatePostgres` of `@sl-accounts/store-postgres/testing`).
 *
 * - not selected by TEST_STORES: skipped, and `locate` is not called (no container is started);
 * - selected and located: runs;
 * - named in TEST_STORES but not found: throws with `locate`'s reason, failing the test file;
 * - only in the default selection and not found: skipped with that reason, and a console.warn
 *   unless TEST_SKIPS_REPORTED is set (a global setup that printed it once for the run sets it).
 */
export async function testStore(kind: 'memory' | 'pglite' | 'sqlite'): Promise<TestStore>;
export async function testStore(kind: StoreKind, locate: () => Promise<StoreLocation>): Promise<TestStore>;
export async function testStore(kind: StoreKind, locate?: () => Promise<StoreLocation>): Promise<TestStore> {
  const { kinds, explicit } = selectedStores();
  if (!kinds.includes(kind)) return skipped(kind, `not in TEST_STORES=${process.env.TEST_STORES}`);
  if (!locate && kind === 'postgres') throw new Error('testStore("postgres") needs a locate function: which server is it?');
  const location = locate ? await locate() : undefined;
  if (location && 'missing' in location) {
    if (explicit) throw new Error(`TEST_STORES=${process.env.TEST_STORES} names ${kind}, but it cannot run: ${location.missing}`);
    // Once per run, not once per test file: a run's global setup that has said it sets TEST_SKIPS_REPORTED.
    if (!process.env.TEST_SKIPS_REPORTED) console.warn(skipWarning(kind, location.missing));
    return skipped(kind, location.missing);
  }
  return { kind, title: location ? `${kind} (${location.where})` : kind };
}

/** testStore for every kind, in STORE_KINDS order. */
export async function testStores(locate: { readonly postgres: () => Promise<StoreLocation> }): Promise<readonly TestStore[]> {
  return Promise.all(STORE_KINDS.map((kind) => (kind === 'postgres' ? testStore(kind, locate.postgres) : testStore(kind))));
}

/** The line that says a store of the default selection is skipped, and why. */
export function skipWarning(kind: StoreKind, reason: string): string {
  return `${kind} store skipped: ${reason} (name it in TEST_STORES to make this an error)`;
}

function skipped(kind: StoreKind, reason: string): TestStore {
  return { kind, skip: reason, title: `${kind} (skipped: ${reason})` };
}
