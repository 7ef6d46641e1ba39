import type { ExpiredCounts } from '../store.ts';
import type { UseCaseContext } from './context.ts';

/** The health check's answer. */
export interface Health {
  readonly ok: boolean;
  readonly status: 'ok' | 'unavailable';
  readonly service: string;
  readonly time: string;
}

/** The service's own operations: its health and its housekeeping. */
export interface ServiceUseCases {
  /**
   * Never throws: a store that does not answer makes the status `unavailable`. Concurrent calls
   * share one ping of the store.
   */
  health(): Promise<Health>;
  /**
   * Deletes expired sessions, reset tokens, e-mail tokens, the outbox's due stand-ins and ended
   * limiter windows; returns how many of each.
   */
  sweep(): Promise<ExpiredCounts & { readonly rateLimitWindows: number; readonly activity: number }>;
}

export function serviceUseCases(context: UseCaseContext): ServiceUseCases {
  const { ports, serviceName } = context;
  const { store, clock } = ports;

  // Health checks that overlap share one ping, so a flood of them (or one MCP batch) keeps at most
  // one statement in flight; a check that arrives during a ping gets that ping's answer.
  let pinging: Promise<boolean> | undefined;
  const pingOnce = () =>
    (pinging ??= store
      .ping()
      .then(() => true, () => false)
      .finally(() => {
        pinging = undefined;
      }));

  return {
    async health(): Promise<Health> {
      const ok = await pingOnce();
      return { ok, status: ok ? 'ok' : 'unavailable', service: serviceName, time: clock.now().toISOString() };
    },

    async sweep() {
      const now = clock.now();
      // Events past ACTIVITY_RETENTION_DAYS go with the rest of what expired.
      const [expired, rateLimitWindows, activity] = await Promise.all([
        store.deleteExpired(now),
        store.rateLimiter.deleteExpired(now),
        store.activity.deleteBefore(new Date(now.getTime() - context.activityRetentionMs)),
      ]);
      return { ...expired, rateLimitWindows, activity };
    },
  };
}
