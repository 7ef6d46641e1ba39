import type { InProcessRevocations } from '@sl-accounts/service/core';
import type { RunStatement } from './compiled.ts';

/** Where a repository's statements go: one unit of work's connection, or the pool (each statement its own). */
export interface Unit {
  readonly run: RunStatement;
  /** Inside a unit of work: the rows a statement locks stay locked until it ends. */
  readonly inTransaction: boolean;
  /**
   * Tells the session caches of this process, once final, that these sessions were deleted or show a
   * changed user. Only where this process is the database's only writer (PGlite): on a server the
   * triggers announce every change to every process, and this is never called.
   */
  readonly revoke?: (digests: readonly string[]) => void;
  /** Outside a unit of work on a Postgres server: lookups made in one turn of the event loop go out as one statement. */
  readonly batchReads?: boolean;
}

/**
 * A unit on `run`; with `revocations` (PGlite), what it revokes is published when `committed()` says
 * so inside a unit of work, at once outside one.
 */
export function unitOn(run: RunStatement, inTransaction: boolean, revocations: InProcessRevocations | undefined): Unit & { committed(): void } {
  if (!revocations) return { run, inTransaction, committed: () => {} };
  if (!inTransaction) return { run, inTransaction, revoke: (digests) => revocations.publish(digests), committed: () => {} };
  const pending: string[] = [];
  return {
    run,
    inTransaction,
    revoke: (digests) => void pending.push(...digests),
    committed: () => revocations.publish(pending.splice(0)),
  };
}
