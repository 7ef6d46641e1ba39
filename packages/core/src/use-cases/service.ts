import type { OneTimeTokenPurpose } from '../store.ts';
import type { UseCaseContext } from './context.ts';

/** The health check's answer. */
export interface Health {
  readonly ok: boolean;
  readonly status: 'ok' | 'unavailable';
  readonly service: string;
  readonly time: string;
}

/** What a sweep deleted, by kind as an operator knows them (the store counts its single-use tokens by purpose). */
export interface SweepCounts {
  readonly sessions: number;
  /** Password reset tokens. */
  readonly resetTokens: number;
  /** Tokens of verification and change-of-address links. */
  readonly emailTokens: number;
  /** Outbox stand-ins due at the time. */
  readonly standIns: number;
  /** Login challenges (`sl_login`). */
  readonly loginChallenges: number;
  /** WebAuthn challenges never answered. */
  readonly passkeyChallenges: number;
  /** States of sign-ins through an identity provider whose callback never came. */
  readonly signInStates: number;
  /** Ended rate-limit windows. */
  readonly rateLimitWindows: number;
  /** Activity events older than ACTIVITY_RETENTION_DAYS. */
  readonly activity: number;
}

/** The sweep's kinds of single-use token, by purpose. */
const SWEPT: Readonly<Record<'resetTokens' | 'emailTokens' | 'loginChallenges' | 'passkeyChallenges' | 'signInStates', readonly OneTimeTokenPurpose[]>> = {
  resetTokens: ['password-reset'],
  emailTokens: ['verify-email', 'change-email'],
  loginChallenges: ['login'],
  passkeyChallenges: ['passkey-register', 'passkey-sign-in', 'passkey-second-factor', 'passkey-step-up'],
  signInStates: ['sign-in-state'],
};

/** The service's own operations: its health and its housekeeping. */
export interface ServiceUseCases {
  /**
   * Never throws: a store that does not answer makes the status `unavailable`. Concurrent calls
   * share one ping of the store.
   */
  health(): Promise<Health>;
  /**
   * Deletes expired sessions, single-use tokens (links, login and WebAuthn challenges, sign-in
   * states), the outbox's due stand-ins, ended limiter windows and activity past its retention;
   * returns how many of each.
   */
  sweep(): Promise<SweepCounts>;
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
      const of = (purposes: readonly OneTimeTokenPurpose[]) => purposes.reduce((n, purpose) => n + (expired.oneTimeTokens[purpose] ?? 0), 0);
      return {
        sessions: expired.sessions,
        resetTokens: of(SWEPT.resetTokens),
        emailTokens: of(SWEPT.emailTokens),
        standIns: expired.standIns,
        loginChallenges: of(SWEPT.loginChallenges),
        passkeyChallenges: of(SWEPT.passkeyChallenges),
        signInStates: of(SWEPT.signInStates),
        rateLimitWindows,
        activity,
      };
    },
  };
}
