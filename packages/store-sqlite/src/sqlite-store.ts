import { directoryOn } from './directory.ts';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { sql } from 'kysely';
import { InProcessRevocations, StoreUnavailable, type MailOutbox, type OneTimeTokenPurpose, type QueuedMail, type RateLimiter, type Store } from '@sl-accounts/service/core';
import { compiled, isUnwritable, kyselyOn, openFile, runnerOn, type Runner, type Unit } from './database.ts';
import { repositories } from './repositories.ts';
import { KIND_RANK, migrateToLatest } from './schema.ts';
import { expiredTokens } from './tokens.ts';

/** The store on one SQLite file, plus its migrations. */
export interface SQLiteStore extends Store {
  /** Applies pending migrations (Kysely's Migrator) and returns their names. */
  migrate(): Promise<readonly string[]>;
  /** The file the store keeps its data in. */
  readonly path: string;
}

export interface SQLiteStoreOptions {
  /**
   * The database file, created (with its directory) when missing; `:memory:` keeps nothing. Give this
   * or `dataDir`.
   */
  readonly path?: string;
  /** A directory to keep the file in, as `accounts.sqlite` (its WAL beside it). */
  readonly dataDir?: string;
}

/** The file a data directory holds the SQLite store's data in. */
export const SQLITE_FILE = 'accounts.sqlite';

/**
 * Runs units of work one at a time, in the order they ask, and the steps outside them between units.
 * node:sqlite is synchronous and this process has one connection, so a statement never interleaves
 * with another; but a unit of work awaits between its statements, and a statement from elsewhere run
 * meanwhile on the same connection would join its transaction. A second connection would not help:
 * its write would wait on the unit's lock synchronously, blocking the very event loop the unit needs
 * to finish (ADR 41). A promise chain of a few lines does the queueing; no library is needed for it.
 */
/** The key of the health check's probe write after a write the file refused. */
const WRITE_PROBE = 'health:write-probe:';

class Gate {
  #tail: Promise<unknown> = Promise.resolve();
  #queued = 0;

  /** Runs `work` alone, after every unit and step queued before it. */
  alone<T>(work: () => Promise<T>): Promise<T> {
    this.#queued++;
    const result = this.#tail.then(work);
    this.#tail = result.then(this.#done, this.#done);
    return result;
  }

  /** Runs one synchronous step: at once when nothing holds or waits for the file, else in turn. */
  step<T>(work: () => T): Promise<T> {
    if (this.#queued > 0) return this.alone(async () => work());
    try {
      return Promise.resolve(work());
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  readonly #done = () => void this.#queued--;
}

const claimMail = compiled(3, (db, leaseEnd: Date, now: Date, limit: number) =>
  db
    .updateTable('mail_outbox')
    .set((eb) => ({ due_at: leaseEnd, attempts: eb('attempts', '+', 1) }))
    .where('id', 'in', (eb) =>
      // Security mail first, contact mail last, each by due time (the claim index's order); stand-ins
      // (no recipient) are never picked, the sweep removes them.
      eb.selectFrom('mail_outbox').select('id').where('recipient', 'is not', null).where('due_at', '<=', now as never).orderBy(sql.raw(KIND_RANK)).orderBy('due_at').limit(limit),
    )
    .returning(['id', 'recipient', 'subject', 'body', 'reply_to', 'kind', 'created_at', 'attempts']),
);
const markSent = compiled(1, (db, id: string) => db.deleteFrom('mail_outbox').where('id', '=', id));
const retryLater = compiled(4, (db, id: string, attempts: number, retryAt: Date, error: string) =>
  db.updateTable('mail_outbox').set({ due_at: retryAt, last_error: error }).where('id', '=', id).where('attempts', '=', attempts),
);
const depth = compiled(0, (db) => db.selectFrom('mail_outbox').select((eb) => eb.fn.countAll<number>().as('n')).where('recipient', 'is not', null));
/** Longest error text kept per mail: enough for an SMTP reply, bounded whatever a server answers. */
const ERROR_CHARS = 1_000;

// One statement: a window that has ended starts afresh, so the sweep is only housekeeping.
const consume = compiled(3, (db, key: string, resetAt: Date, now: Date) =>
  db
    .insertInto('rate_limit_windows')
    .values({ key, count: 1, reset_at: resetAt })
    .onConflict((oc) =>
      oc.column('key').doUpdateSet((eb) => {
        const ended = eb('rate_limit_windows.reset_at', '<=', now as never);
        return {
          count: eb.case().when(ended).then(1).else(eb('rate_limit_windows.count', '+', 1)).end(),
          reset_at: eb.case().when(ended).then(eb.ref('excluded.reset_at')).else(eb.ref('rate_limit_windows.reset_at')).end(),
        };
      }),
    )
    .returning(['count', 'reset_at']),
);
const refund = compiled(2, (db, key: string, now: Date) =>
  db.updateTable('rate_limit_windows').set((eb) => ({ count: eb('count', '-', 1) })).where('key', '=', key).where('reset_at', '>', now as never).where('count', '>', 0),
);
const clearWindow = compiled(1, (db, key: string) => db.deleteFrom('rate_limit_windows').where('key', '=', key));
const deleteEndedWindows = compiled(1, (db, now: Date) => db.deleteFrom('rate_limit_windows').where('reset_at', '<=', now as never));

const addKey = compiled(2, (db, key: string, at: Date) => db.insertInto('device_keys').values({ id: 1, key, created_at: at }).onConflict((oc) => oc.doNothing()));
const readKey = compiled(0, (db) => db.selectFrom('device_keys').select('key').where('id', '=', 1));

const expiredSessions = compiled(1, (db, now: Date) => db.deleteFrom('sessions').where('expires_at', '<=', now as never).returning('token_digest'));
// Stand-ins (rows without a recipient) due by now: they were never to be sent.
const dueStandIns = compiled(1, (db, now: Date) => db.deleteFrom('mail_outbox').where('recipient', 'is', null).where('due_at', '<=', now as never));

/**
 * The store on one SQLite file (node:sqlite), for one process: the file stays locked to this
 * process until `close()`, and a second process that opens it fails at once with a message that says
 * so. Several processes on one database take Postgres (`@sl-accounts/store-postgres`).
 */
export function createSQLiteStore(options: SQLiteStoreOptions): SQLiteStore {
  return openSQLite(options).store;
}

/**
 * createSQLiteStore, with its connection. Inside this package only (the entry does not export it):
 * its tests read rows that no port reads back through it, the only connection the file allows.
 */
export function openSQLite(options: SQLiteStoreOptions): { readonly store: SQLiteStore; readonly file: DatabaseSync } {
  const path = options.path ?? (options.dataDir === undefined ? undefined : join(options.dataDir, SQLITE_FILE));
  if (!path) throw new TypeError('createSQLiteStore needs a path (a file) or a dataDir (a directory)');
  const file = openFile(path);
  const db = kyselyOn(file);
  // Set by a write the file refused (a full disk): health is not ok until a probe write passes again.
  let unwritable = false;
  const failure = (error: unknown) => {
    if (!isUnwritable(error)) return error;
    unwritable = true;
    return new StoreUnavailable({ cause: error });
  };
  const run = runnerOn(file, failure);
  const gate = new Gate();
  // This process is the file's only writer, so its own deletes are every revocation.
  const revocations = new InProcessRevocations();
  const outside: Unit = { step: (work) => gate.step(() => work(run)), revoke: (digests) => revocations.publish(digests) };
  const step = <T>(work: (run: Runner) => T) => outside.step(work);
  let closed = false;

  const outbox: MailOutbox = {
    claim: (now, { limit, leaseMs }) =>
      step((r) =>
        claimMail
          .all(r, new Date(now.getTime() + leaseMs), now, limit)
          .sort((a, b) => a.created_at - b.created_at)
          // The claim picks rows with a recipient only.
          .map((row): QueuedMail => ({ id: row.id, to: row.recipient!, subject: row.subject, text: row.body, ...(row.reply_to === null ? {} : { replyTo: row.reply_to }), kind: row.kind, attempts: row.attempts, createdAt: new Date(row.created_at) })),
      ),
    markSent: (id) => step((r) => void markSent.changes(r, id)),
    retryLater: (id, attempts, retryAt, error) => step((r) => void retryLater.changes(r, id, attempts, retryAt, error.slice(0, ERROR_CHARS))),
    depth: () => step((r) => depth.all(r)[0]!.n),
  };
  const rateLimiter: RateLimiter = {
    consume: (key, rule, now) =>
      step((r) => {
        const [row] = consume.all(r, key, new Date(now.getTime() + rule.windowMs), now);
        return { allowed: row!.count <= rule.limit, count: row!.count, resetAt: new Date(row!.reset_at) };
      }),
    refund: (key, now) => step((r) => void refund.changes(r, key, now)),
    clear: (key) => step((r) => void clearWindow.changes(r, key)),
    deleteExpired: (now) => step((r) => deleteEndedWindows.changes(r, now)),
  };
  const repos = repositories(outside);
  const directory = directoryOn(outside);

  const store: SQLiteStore = {
    ...repos,
    path,
    outbox: { ...repos.outbox, ...outbox },
    rateLimiter,
    deviceKeys: {
      getOrCreate: (candidate) =>
        step((r) => {
          addKey.changes(r, candidate, new Date());
          return readKey.all(r)[0]!.key;
        }),
    },
    revocations,
    directory,
    transaction: (work) =>
      gate.alone(async () => {
        // IMMEDIATE takes the write lock now, not at the first write: with the file held by this
        // process alone it cannot wait, and a read-then-write never meets SQLITE_BUSY halfway.
        file.exec('BEGIN IMMEDIATE');
        const pending: string[] = [];
        try {
          const result = await work(repositories({ step: async (w) => w(run), revoke: (digests) => void pending.push(...digests) }));
          file.exec('COMMIT');
          revocations.publish(pending);
          return result;
        } catch (error) {
          if (file.isTransaction) file.exec('ROLLBACK');
          throw failure(error);
        }
      }),
    deleteExpired: (now) =>
      step((r) => {
        const sessions = expiredSessions.all(r, now).map((row) => row.token_digest);
        revocations.publish(sessions);
        const oneTimeTokens: Partial<Record<OneTimeTokenPurpose, number>> = {};
        for (const { purpose } of expiredTokens.all(r, now)) oneTimeTokens[purpose] = (oneTimeTokens[purpose] ?? 0) + 1;
        return { sessions: sessions.length, standIns: dueStandIns.changes(r, now), oneTimeTokens };
      }),
    ping: () =>
      step(() => {
        file.prepare('select 1').get();
        if (unwritable) {
          // A write that needs new pages (a row of two pages, taken back in the same transaction),
          // as the write that failed did: room for it is what "writable again" means.
          file.exec('BEGIN IMMEDIATE');
          try {
            file.exec(`insert into rate_limit_windows (key, count, reset_at) values ('${WRITE_PROBE}' || hex(zeroblob(4096)), 0, 0)`);
            file.exec(`delete from rate_limit_windows where key like '${WRITE_PROBE}%'`);
            file.exec('COMMIT');
          } catch (error) {
            if (file.isTransaction) file.exec('ROLLBACK');
            throw failure(error);
          }
          unwritable = false;
        }
      }),
    migrate: () => gate.alone(() => migrateToLatest(db)),
    close: () =>
      gate.alone(async () => {
        if (closed) return;
        closed = true;
        await db.destroy();
        file.close();
      }),
  };
  return { store, file };
}
