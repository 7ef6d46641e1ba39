import { CompiledQuery, type Compilable, type QueryResult } from 'kysely';

/**
 * Runs one statement's SQL with its parameters and returns its rows. On a Postgres server this is
 * the pool itself (`PreparingPool.rows`); on PGlite, which has no pool, Kysely's executor.
 */
export type RunStatement = (sql: string, parameters: readonly unknown[]) => Promise<unknown[]>;

/** Runs statements through Kysely's executor, for a dialect without a pool to run them on directly. */
export function throughKysely(db: { executeQuery<R>(query: CompiledQuery<R>): Promise<QueryResult<R>> }): RunStatement {
  return async (sql, parameters) => (await db.executeQuery(CompiledQuery.raw(sql, [...parameters]))).rows;
}

/**
 * A query that Kysely builds and compiles once, then runs with fresh values. Building and compiling
 * the query tree on every call costs more CPU than the round trip itself on a hot path such as
 * /api/me; the SQL text is the same every time anyway. The compiled statement goes to `run`, which
 * on a Postgres server skips Kysely's executor as well.
 *
 * `build` receives one placeholder per parameter and must use them where the values go (a
 * placeholder may appear several times); constants it writes itself stay as they are.
 */
export function compileOnce<Row, Params extends readonly unknown[]>(
  run: RunStatement,
  arity: Params['length'],
  build: (...placeholders: Params) => Compilable<Row>,
): (...values: Params) => Promise<Row[]> {
  const placeholders = Array.from({ length: arity }, (_, i) => new Placeholder(i));
  const { sql, parameters } = build(...(placeholders as unknown as Params)).compile();
  const slots = parameters.map((p) => (p instanceof Placeholder ? p.index : -1));
  // The common case: each value once, in order, and nothing else; then the values are the parameters.
  const inOrder = slots.length === arity && slots.every((slot, i) => slot === i);
  return (...values) => run(sql, inOrder ? values : parameters.map((p, i) => (slots[i]! >= 0 ? values[slots[i]!] : p))) as Promise<Row[]>;
}

class Placeholder {
  readonly index: number;
  constructor(index: number) {
    this.index = index;
  }
}
