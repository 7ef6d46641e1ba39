import type { Compilable, CompiledQuery, QueryResult } from 'kysely';

/**
 * A query that Kysely builds and compiles once, then runs with fresh values. Building and compiling
 * the query tree on every call costs more CPU than the round trip itself on a hot path such as
 * /api/me; the SQL text is the same every time anyway.
 *
 * `build` receives one placeholder per parameter and must use them where the values go (a
 * placeholder may appear several times); constants it writes itself stay as they are.
 */
export function compileOnce<Row, Params extends readonly unknown[]>(
  db: { executeQuery<R>(query: CompiledQuery<R>): Promise<QueryResult<R>> },
  arity: Params['length'],
  build: (...placeholders: Params) => Compilable<Row>,
): (...values: Params) => Promise<Row[]> {
  const placeholders = Array.from({ length: arity }, (_, i) => new Placeholder(i));
  const compiled = build(...(placeholders as unknown as Params)).compile();
  const slots = compiled.parameters.map((p) => (p instanceof Placeholder ? p.index : -1));
  return async (...values) => {
    const parameters = compiled.parameters.map((p, i) => (slots[i]! >= 0 ? values[slots[i]!] : p));
    const query: CompiledQuery<Row> = { ...compiled, parameters };
    return (await db.executeQuery(query)).rows;
  };
}

class Placeholder {
  readonly index: number;
  constructor(index: number) {
    this.index = index;
  }
}
