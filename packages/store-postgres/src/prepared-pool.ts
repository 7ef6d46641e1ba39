import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import { toStoreError } from './unavailable.ts';

/**
 * pg's Pool as Kysely's PostgresDialect sees it, with two changes:
 *
 * - A statement with parameters goes out as a named prepared statement, so each connection parses
 *   and plans it once and afterwards only binds and executes. Kysely compiles a query to the same
 *   text every time and the adapters build no SQL from values, so the set of names stays small.
 * - Connection failures come out as core's StoreUnavailable, whichever query met them.
 */
export function preparingPool(pool: pg.Pool): PostgresPool {
  // Kysely keys its connection objects by client; keep one wrapper per pg client to match.
  const wrappers = new WeakMap<pg.PoolClient, PreparingClient>();
  return {
    options: pool.options,
    async connect() {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        throw toStoreError(error);
      }
      let wrapper = wrappers.get(client);
      if (!wrapper) {
        wrapper = new PreparingClient(client);
        wrappers.set(client, wrapper);
      }
      return wrapper;
    },
    end: () => pool.end(),
  };
}

class PreparingClient implements PostgresPoolClient {
  readonly #client: pg.PoolClient;

  constructor(client: pg.PoolClient) {
    this.#client = client;
  }

  /** Lets Kysely cancel a running query by backend pid. */
  get processID(): number | undefined {
    return (this.#client as { processID?: number }).processID;
  }

  query<R>(sql: string, parameters: readonly unknown[]): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(sql: string | PostgresCursor<R>, parameters: readonly unknown[] = []): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    if (typeof sql !== 'string') throw new Error('Cursors are not configured for this pool');
    return this.#run(sql, parameters);
  }

  release(destroy?: boolean): void {
    // pg-pool replaces `release` on every checkout, so look it up each time.
    this.#client.release(destroy);
  }

  async #run<R>(text: string, parameters: readonly unknown[]): Promise<PostgresQueryResult<R>> {
    const values = [...parameters];
    // Parameterless statements (BEGIN, DDL, `select 1`) gain nothing from preparing.
    const query: pg.QueryConfig = values.length > 0 ? { name: statementName(text), text, values } : { text, values };
    try {
      return (await this.#client.query(query)) as unknown as PostgresQueryResult<R>;
    } catch (error) {
      throw toStoreError(error);
    }
  }
}

const names = new Map<string, string>();

/** A name unique to the statement text (Postgres allows 63 bytes), hashed once per text. */
function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `sl_${createHash('sha1').update(text).digest('base64url')}`;
    // The adapters build no SQL from values, so the texts are few; the bound is only a safeguard.
    if (names.size < 1000) names.set(text, name);
  }
  return name;
}
