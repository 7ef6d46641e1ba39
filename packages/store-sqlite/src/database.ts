import { chmodSync, lstatSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { DummyDriver, Kysely, SqliteAdapter, SqliteDialect, SqliteIntrospector, SqliteQueryCompiler, type Compilable } from 'kysely';
import type { Database } from './schema.ts';

/**
 * Opens the file (and its directory) for this process alone, in WAL mode. `locking_mode=EXCLUSIVE`
 * holds the file's lock from the first read until `close()`: a second process (or a second store in
 * this one) that opens the file fails at once with `SQLITE_BUSY`, which this turns into an error that
 * says why; and with the lock held, SQLite keeps the WAL index in this process's memory (no -shm file).
 */
export function openFile(path: string): DatabaseSync {
  const onDisk = path !== ':memory:';
  let db: DatabaseSync;
  try {
    // The chmod below follows a link: a link planted at the file's place would hand its target's
    // mode (and then its bytes) to this store. A linked directory above it is a layout, and is kept.
    if (onDisk && lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink()) {
      throw new Error(`${resolve(path)} is a symbolic link: the SQLite store opens a regular file only; point DATA_DIR (or SQLITE_PATH) at the file's real place`);
    }
    if (onDisk) mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    db = new DatabaseSync(path);
  } catch (error) {
    throw unwritable(path, error);
  }
  try {
    // Password hashes and token digests: the owner's alone, whatever the umask (the WAL takes this mode too).
    if (onDisk) chmodSync(path, 0o600);
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    db.exec('PRAGMA journal_mode = WAL');
    // WAL's own recommendation: a commit is durable against a crash of the process at once, and
    // against a power cut from the next checkpoint; `full` would sync every commit (ADR 41).
    db.exec('PRAGMA synchronous = NORMAL');
    db.exec('PRAGMA foreign_keys = ON');
  } catch (error) {
    db.close();
    if ((error as { errcode?: unknown }).errcode === SQLITE_BUSY) {
      throw new Error(`${path} is open in another process (or store): the SQLite store serves one process; several processes take Postgres (STORE=postgres)`, { cause: error });
    }
    throw unwritable(path, error);
  }
  return db;
}

/**
 * What an open that failed for want of a writable place says: the directory, and what to do. (Node
 * says "unable to open database file" or `EPERM ... chmod`, naming neither.)
 */
function unwritable(path: string, error: unknown): Error {
  const { code, errcode } = error as { code?: string; errcode?: number };
  const cannotWrite = ['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'EEXIST', 'ENOENT'].includes(code ?? '') || [8, 14].includes((errcode ?? 0) & 0xff);
  if (!cannotWrite) return error as Error;
  const dir = resolve(dirname(path));
  return new Error(`cannot write the data directory ${dir} (${errcode === undefined ? code : (error as Error).message}): make it a directory this user (uid ${process.getuid?.() ?? '?'}) can write, or set DATA_DIR (or SQLITE_PATH) to one`, { cause: error });
}

const SQLITE_BUSY = 5;
/**
 * Primary result codes that mean the file cannot be written now, not that a statement is wrong: a
 * read-only file (8), an I/O error (10), a full disk or `max_page_count` reached (13). The service
 * answers them 503 `store_unavailable` and its health says so, as a database that does not answer.
 */
const UNWRITABLE = new Set([8, 10, 13]);
export const isUnwritable = (error: unknown) => UNWRITABLE.has(((error as { errcode?: number } | null)?.errcode ?? 0) & 0xff);
/** `SQLITE_CONSTRAINT_UNIQUE` (and the primary key's): an address another user holds. */
export const isUniqueViolation = (error: unknown) => [2067, 1555].includes((error as { errcode?: number } | null)?.errcode ?? 0);

/**
 * Kysely's own SQLite dialect over `DatabaseSync`. The dialect wants better-sqlite3's statement shape
 * (`reader`, and parameters as one array); node:sqlite's statements spread them and tell whether they
 * return rows by their columns. These few lines are the whole dialect: the registry's node:sqlite
 * dialects either pin Kysely 0.28 (a second copy beside this workspace's 0.29) or leave this same
 * adapter to the caller (ADR 41).
 */
export function kyselyOn(db: DatabaseSync): Kysely<Database> {
  const database = {
    close: () => {}, // the store closes the file itself, after Kysely
    prepare(text: string) {
      const statement = db.prepare(text);
      return {
        reader: statement.columns().length > 0,
        all: (parameters: readonly unknown[]) => statement.all(...bound(parameters)),
        run: (parameters: readonly unknown[]) => statement.run(...bound(parameters)),
        iterate: (parameters: readonly unknown[]) => statement.iterate(...bound(parameters)),
      };
    },
  };
  return new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
}

/** Values as SQLite stores them: a time as its milliseconds, a flag as 0 or 1. */
const bound = (values: readonly unknown[]): SQLInputValue[] =>
  values.map((v) => (v instanceof Date ? v.getTime() : typeof v === 'boolean' ? Number(v) : v === undefined ? null : v) as SQLInputValue);

/**
 * Runs one compiled statement on the file, at once, and answers its rows (or, for a statement without
 * rows, how many it changed). Each SQL text is prepared once and kept.
 */
export interface Runner {
  all(sql: string, values: readonly unknown[]): unknown[];
  changes(sql: string, values: readonly unknown[]): number;
}

/** `failure` turns what a statement threw into what the caller gets (a full disk into StoreUnavailable). */
export function runnerOn(db: DatabaseSync, failure: (error: unknown) => unknown = (error) => error): Runner {
  const prepared = new Map<string, StatementSync>();
  const statementOf = (text: string) => {
    let statement = prepared.get(text);
    if (!statement) prepared.set(text, (statement = db.prepare(text)));
    return statement;
  };
  return {
    all: (text, values) => {
      try {
        return statementOf(text).all(...bound(values));
      } catch (error) {
        throw failure(error);
      }
    },
    changes: (text, values) => {
      try {
        return Number(statementOf(text).run(...bound(values)).changes);
      } catch (error) {
        throw failure(error);
      }
    },
  };
}

/** A Kysely that only builds and compiles SQLite's SQL; it runs nothing. */
const builder = new Kysely<Database>({
  dialect: {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  },
});

/** A statement compiled once: runs on a runner with its values, answering its rows or how many rows it changed. */
export interface Compiled<Row, Params extends readonly unknown[]> {
  all(run: Runner, ...values: Params): Row[];
  changes(run: Runner, ...values: Params): number;
}

/**
 * Builds a query with Kysely once, at load, and compiles it: building the tree again for every call
 * would cost more CPU than SQLite's own work on the hot paths (store-postgres's `statement` says the
 * same of Postgres). `build` receives one placeholder per parameter and uses them where values go.
 */
export function compiled<Row, Params extends readonly unknown[]>(arity: Params['length'], build: (db: Kysely<Database>, ...placeholders: Params) => Compilable<Row>): Compiled<Row, Params> {
  const placeholders = Array.from({ length: arity }, (_, i) => new Placeholder(i));
  const { sql, parameters } = build(builder, ...(placeholders as unknown as Params)).compile();
  const values = (given: Params) => parameters.map((p) => (p instanceof Placeholder ? given[p.index] : p));
  return { all: (run, ...given) => run.all(sql, values(given)) as Row[], changes: (run, ...given) => run.changes(sql, values(given)) };
}

class Placeholder {
  readonly index: number;
  constructor(index: number) {
    this.index = index;
  }
}

/**
 * Where a repository's statements run. Every statement is synchronous (node:sqlite), so each is
 * atomic in this process by itself; `step` runs one when the store may: inside a unit of work at once
 * (the unit holds the file), outside one after the units that hold or wait for it.
 */
export interface Unit {
  step<T>(work: (run: Runner) => T): Promise<T>;
  /** Sessions deleted, or whose user changed: told to the session caches once final (on commit). */
  revoke(digests: readonly string[]): void;
}
