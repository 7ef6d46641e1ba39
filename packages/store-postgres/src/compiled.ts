import { CompiledQuery, DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, type Compilable, type QueryResult } from 'kysely';
import type { Database } from './database.ts';

/**
 * Runs one statement's SQL with its parameters and returns its rows: on a Postgres server a pooled
 * connection (`PreparingPool.rows`) or the connection of a unit of work; on PGlite, Kysely's executor.
 */
export type RunStatement = (sql: string, parameters: readonly unknown[]) => Promise<unknown[]>;

/** Runs statements through Kysely's executor, for a dialect without a pool to run them on directly. */
export function throughKysely(db: { executeQuery<R>(query: CompiledQuery<R>): Promise<QueryResult<R>> }): RunStatement {
  return async (sql, parameters) => (await db.executeQuery(CompiledQuery.raw(sql, [...parameters]))).rows;
}

/** A Kysely that only builds and compiles Postgres SQL (PGlite speaks it too); it runs nothing. */
const builder = new Kysely<Database>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

/** A statement compiled once: call it with where to run it and its values. */
export type Statement<Row, Params extends readonly unknown[]> = (run: RunStatement, ...values: Params) => Promise<Row[]>;

/**
 * A statement that Kysely builds and compiles once, when this module's caller is loaded, and that
 * runs afterwards with fresh values on any connection. Building and compiling the query tree on every
 * call costs more CPU than the round trip itself on a hot path (a login's unit of work spent ~20 % of
 * the main thread in Kysely, measured with `test/bench/login-profile.ts`); the SQL text is the same
 * every time anyway, and goes out as a named prepared statement (prepared-pool.ts).
 *
 * `build` receives the builder and one placeholder per parameter, and must use them where the values
 * go (a placeholder may appear several times); constants it writes itself stay as they are.
 */
export function statement<Row, Params extends readonly unknown[]>(arity: Params['length'], build: (db: Kysely<Database>, ...placeholders: Params) => Compilable<Row>): Statement<Row, Params> {
  const placeholders = Array.from({ length: arity }, (_, i) => new Placeholder(i));
  const { sql, parameters } = build(builder, ...(placeholders as unknown as Params)).compile();
  const slots = parameters.map((p) => (p instanceof Placeholder ? p.index : -1));
  // The common case: each value once, in order, and nothing else; then the values are the parameters.
  const inOrder = slots.length === arity && slots.every((slot, i) => slot === i);
  return (run, ...values) => run(sql, inOrder ? values : parameters.map((p, i) => (slots[i]! >= 0 ? values[slots[i]!] : p))) as Promise<Row[]>;
}

class Placeholder {
  readonly index: number;
  constructor(index: number) {
    this.index = index;
  }
}
