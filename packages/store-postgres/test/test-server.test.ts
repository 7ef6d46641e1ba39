/**
 * How the tests find their PostgreSQL server (`@sl-accounts/store-postgres/testing`): a DATABASE_URL that
 * does not answer means no server, with the reason, rather than an error that fails every test file
 * (and the memory and PGlite cases in them); a lookup a global setup made is taken as it is.
 */
// @module-tag database
import { afterEach, describe, expect, it, vi } from 'vitest';

afterEach(() => {
  vi.unstubAllEnvs();
  // The files after this one, in a run that shares modules, must not meet the lookups made here.
  vi.resetModules();
});

/**
 * A fresh module each time: the lookup is made once per module instance, and a test file that ran
 * before this one in the same worker (the runs share modules) may have made it already.
 */
const fresh = async () => {
  vi.resetModules();
  return (await import('../src/testing/server.ts')).findPostgresServer();
};

describe('findPostgresServer', () => {
  it('answers a DATABASE_URL that does not answer with no server and the reason, naming the address', async () => {
    vi.stubEnv('TEST_POSTGRES_LOOKUP', '');
    vi.stubEnv('DATABASE_URL', 'postgres://postgres:hunter2@127.0.0.1:1/nowhere');
    const found = await fresh();
    expect(found).toEqual({ missing: expect.stringMatching(/^DATABASE_URL \(127\.0\.0\.1:1\) does not answer: .+\. Start that server, or unset DATABASE_URL/) });
    expect(JSON.stringify(found)).not.toContain('hunter2');
  });

  it('takes the lookup of the run from TEST_POSTGRES_LOOKUP without looking again', async () => {
    vi.stubEnv('DATABASE_URL', 'postgres://postgres@127.0.0.1:1/nowhere');
    vi.stubEnv('TEST_POSTGRES_LOOKUP', JSON.stringify({ server: { url: 'postgres://postgres@db.example:5432/postgres', source: 'DATABASE_URL' } }));
    expect(await fresh()).toEqual({ server: { url: 'postgres://postgres@db.example:5432/postgres', source: 'DATABASE_URL' } });
  });
});
