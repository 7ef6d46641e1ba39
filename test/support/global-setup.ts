/**
 * Global setup of `pnpm test`: looks for the PostgreSQL server once for the whole run (not once per
 * test file) and says once, before any test, why the postgres store is skipped when it is. The test
 * files inherit the answer (TEST_POSTGRES_LOOKUP) and skip its cases quietly, with the reason in their
 * titles; the memory and PGlite cases run whatever the database does. A store that TEST_STORES names
 * and that cannot run stops the run here, with one message. It builds the run's templates once (PGlite's,
 * and a migrated database on the PostgreSQL server), which test files copy their databases from, and
 * removes them at the end.
 */
import { selectedStores, skipWarning } from '@sl-accounts/store-contract';
// The server helpers and the templates alone, not `@sl-accounts/store-postgres/testing`: that also
// loads the PGlite helpers, which register vitest hooks, and a global setup runs outside any test file.
import { createPGliteTemplates } from '@sl-accounts/store-postgres/testing/pglite-templates';
import { createPostgresTemplate, shareLookup } from '@sl-accounts/store-postgres/testing/server';

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  const { kinds, explicit } = selectedStores();
  const templates = kinds.includes('pglite') ? await createPGliteTemplates() : undefined;
  if (templates) Object.assign(process.env, templates.env);
  const teardown = templates ? () => templates.remove() : undefined;
  if (!kinds.includes('postgres')) return teardown;
  const found = await shareLookup();
  if ('server' in found) {
    // The migrated database every test file copies its own from (createTestDatabase({ migrated: true })).
    const template = await createPostgresTemplate(found.server);
    Object.assign(process.env, template.env);
    return async () => {
      await Promise.all([teardown?.(), template.remove()]);
    };
  }
  if (explicit) {
    await teardown?.();
    throw new Error(`TEST_STORES=${process.env.TEST_STORES} names postgres, but it cannot run: ${found.missing}`);
  }
  console.warn(`\n${skipWarning('postgres', found.missing)}\n`);
  process.env.TEST_SKIPS_REPORTED = '1';
  return teardown;
}
