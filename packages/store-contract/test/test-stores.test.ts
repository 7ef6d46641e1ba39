import { afterEach, describe, expect, it, vi } from 'vitest';
import { selectedStores, testStore, testStores } from '@sl-accounts/store-contract';

const found = async () => ({ where: 'local server 127.0.0.1:5432' });
const missing = async () => ({ missing: 'no PostgreSQL server: start one' });

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe('selectedStores', () => {
  it('selects every store when TEST_STORES is unset or empty, without naming any', () => {
    expect(selectedStores({})).toEqual({ kinds: ['memory', 'pglite', 'postgres', 'sqlite'], explicit: false });
    expect(selectedStores({ TEST_STORES: ' ' })).toEqual({ kinds: ['memory', 'pglite', 'postgres', 'sqlite'], explicit: false });
  });

  it('reads a comma list, spaces allowed', () => {
    expect(selectedStores({ TEST_STORES: 'postgres, memory' })).toEqual({ kinds: ['memory', 'postgres'], explicit: true });
  });

  it('refuses a name it does not know', () => {
    expect(() => selectedStores({ TEST_STORES: 'memory,mysql' })).toThrow(/unknown store "mysql"; use a comma list of memory, pglite, postgres, sqlite/);
  });
});

describe('testStore', () => {
  it('runs a selected store, with where it runs in the title', async () => {
    vi.stubEnv('TEST_STORES', '');
    expect(await testStore('memory')).toEqual({ kind: 'memory', title: 'memory' });
    expect(await testStore('postgres', found)).toEqual({ kind: 'postgres', title: 'postgres (local server 127.0.0.1:5432)' });
  });

  it('skips a store TEST_STORES leaves out, without looking for it', async () => {
    vi.stubEnv('TEST_STORES', 'memory');
    const locate = vi.fn(found);
    expect(await testStore('postgres', locate)).toEqual({
      kind: 'postgres',
      skip: 'not in TEST_STORES=memory',
      title: 'postgres (skipped: not in TEST_STORES=memory)',
    });
    expect(locate).not.toHaveBeenCalled();
  });

  it('fails when TEST_STORES names a store that cannot run, saying why', async () => {
    vi.stubEnv('TEST_STORES', 'postgres');
    await expect(testStore('postgres', missing)).rejects.toThrow('TEST_STORES=postgres names postgres, but it cannot run: no PostgreSQL server: start one');
  });

  it('skips a store of the default selection that cannot run, with its reason in the title and a warning', async () => {
    vi.stubEnv('TEST_STORES', '');
    vi.stubEnv('TEST_SKIPS_REPORTED', '');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    expect(await testStore('postgres', missing)).toEqual({
      kind: 'postgres',
      skip: 'no PostgreSQL server: start one',
      title: 'postgres (skipped: no PostgreSQL server: start one)',
    });
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('postgres store skipped: no PostgreSQL server: start one'));
  });

  it('leaves the warning to the run when its global setup has printed it once (TEST_SKIPS_REPORTED)', async () => {
    vi.stubEnv('TEST_STORES', '');
    vi.stubEnv('TEST_SKIPS_REPORTED', '1');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    expect(await testStore('postgres', missing)).toMatchObject({ skip: 'no PostgreSQL server: start one' });
    expect(warn).not.toHaveBeenCalled();
  });

  it('refuses postgres without a way to find the server, rather than pretend it runs', async () => {
    vi.stubEnv('TEST_STORES', '');
    // @ts-expect-error: the types already require locate for postgres
    await expect(testStore('postgres')).rejects.toThrow(/needs a locate function/);
  });

  it('testStores gives every kind in order', async () => {
    vi.stubEnv('TEST_STORES', 'memory,postgres');
    expect((await testStores({ postgres: found })).map((s) => s.title)).toEqual([
      'memory',
      'pglite (skipped: not in TEST_STORES=memory,postgres)',
      'postgres (local server 127.0.0.1:5432)',
      'sqlite (skipped: not in TEST_STORES=memory,postgres)',
    ]);
  });
});
