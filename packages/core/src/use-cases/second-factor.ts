/**
 * The seam every second factor plugs into (docs/decisions/0043-login-challenge-and-statuses.md);
 * the login challenge and the second step are states of the login flow (login-flow.ts):
 *
 * - **Whether an account has a factor** (`hasSecondFactor`, `factorMethods`): each kind is a
 *   `FactorSource`. With one on, a password starts the `sl_login` challenge, never a session.
 * - **Wrong answers** count per account, whatever device proof or session comes along
 *   (`countAnswer`: SECOND_FACTOR_LIMIT; SECOND_FACTOR_RECOVERY_LIMIT past it), at the second step
 *   and at a step-up alike.
 * - **The step-up** (`recordStepUp`, `requireStepUp`): "a factor was verified for this session at
 *   T". With a factor on, the owner's changes (password, address, deletion, renewing the recovery
 *   codes) need one within `stepUpWindowMs`, or a code in their body. Adding or removing a way to
 *   sign in needs more: the proof in its own request (`proveOwner`, two-factor.ts).
 *
 * A new kind (passkeys) adds a `FactorSource` (whether an account has it on), calls `finishLogin`
 * (login-flow.ts) with its own verifier, and `recordStepUp` from its own step-up route.
 */
import { RateLimited, SecondFactorRequired, Unauthenticated } from '../errors.ts';
import { accountKey, countRequest, SECOND_FACTOR_ACCOUNT_POLICY, SECOND_FACTOR_LIMIT, SECOND_FACTOR_RECOVERY_LIMIT, SECOND_FACTOR_RECOVERY_POLICY, type Counted, type Tally } from '../rate-limits.ts';
import type { FactorKind } from '../store.ts';
import type { UseCaseContext } from './context.ts';
import type { RequestMeta } from './request.ts';
import { stillSignedIn } from './sessions.ts';

/** The kinds of factor the account has on (empty: it logs in with the password alone). */
export async function factorMethods(context: UseCaseContext, userId: number): Promise<FactorKind[]> {
  const on = await Promise.all(context.factorSources.map(async (source) => ((await source.isOn(userId)) ? source.kind : null)));
  return on.filter((kind): kind is FactorKind => kind !== null);
}

/** Whether the account has a second factor on (recovery codes alone are no factor: they stand in for one). */
export async function hasSecondFactor(context: UseCaseContext, userId: number): Promise<boolean> {
  for (const source of context.factorSources) if (source.kind !== 'recovery' && (await source.isOn(userId))) return true;
  return false;
}

/** Records that a factor of `kind` was verified for the session with this digest now (a step-up). */
export async function recordStepUp(context: UseCaseContext, sessionDigest: string, kind: FactorKind): Promise<void> {
  const { store, clock } = context.ports;
  if (!(await store.sessions.recordStepUp(sessionDigest, kind, clock.now()))) throw new Unauthenticated();
}

/** Whether the session verified a factor within `context.stepUpWindowMs`. */
export async function hasRecentStepUp(context: UseCaseContext, sessionDigest: string): Promise<boolean> {
  const { store, clock } = context.ports;
  const stepUp = await store.sessions.findStepUp(sessionDigest);
  return stepUp !== null && clock.now().getTime() - stepUp.verifiedAt.getTime() <= context.stepUpWindowMs;
}

/**
 * The step-up of an owner's change: when the account has a second factor on, the change needs a
 * factor verified for this session within the window, or `verifyCode` (a code the body carried,
 * checked and consumed by the caller's kind) to say yes. Throws SecondFactorRequired when neither.
 */
export async function requireStepUp(context: UseCaseContext, sessionDigest: string, userId: number, verifyCode: (() => Promise<FactorKind>) | null): Promise<void> {
  if (!(await hasSecondFactor(context, userId))) return;
  if (verifyCode) {
    await recordStepUp(context, sessionDigest, await verifyCode());
    return;
  }
  if (!(await hasRecentStepUp(context, sessionDigest))) {
    // No step-up, or no session any more: a session another change ended meanwhile is told so.
    await stillSignedIn(context, sessionDigest);
    throw new SecondFactorRequired();
  }
}

/**
 * Counts one second-factor answer for the account (SECOND_FACTOR_LIMIT), whatever session or
 * device proof sent it. An `unguessable` answer (a recovery code, a passkey assertion) is still
 * checked once that bound is spent, counted under SECOND_FACTOR_RECOVERY_LIMIT instead: strangers
 * who have the password and spent the 10 with wrong TOTP codes do not lock the owner out. That
 * second window is the account's for a client without a device proof of it, and the proof's own
 * for a client with one (the owner's browser): whoever has the password can spend the shared one
 * with wrong recovery codes, never the owner's browser's (ADR 0047, amended 2026-12-08). Which
 * spends nothing a guess could use: a recovery code is one of ten 50-bit values. A completed
 * password reset clears the account's windows (`secondFactorKeys`). Throws RateLimited.
 */
export async function countAnswer(context: UseCaseContext, userId: number, tally: Tally, unguessable: false | { readonly deviceProof: RequestMeta['deviceProof'] } = false): Promise<Counted> {
  const { store, clock } = context.ports;
  try {
    return await countRequest(store.rateLimiter, SECOND_FACTOR_ACCOUNT_POLICY, secondFactorKeys(userId)[0], SECOND_FACTOR_LIMIT, clock.now(), tally);
  } catch (error) {
    if (!unguessable || !(error instanceof RateLimited)) throw error;
    const device = await context.devices.verify(unguessable.deviceProof, userId);
    const key = device ? accountKey(SECOND_FACTOR_RECOVERY_POLICY, `${userId}\0${device}`) : secondFactorKeys(userId)[1];
    return countRequest(store.rateLimiter, SECOND_FACTOR_RECOVERY_POLICY, key, SECOND_FACTOR_RECOVERY_LIMIT, clock.now(), tally);
  }
}

/** The limiter keys of the account's second-factor windows that strangers with the password share: SECOND_FACTOR_LIMIT's, and SECOND_FACTOR_RECOVERY_LIMIT's for clients without a device proof. */
export function secondFactorKeys(userId: number): readonly [string, string] {
  return [accountKey(SECOND_FACTOR_ACCOUNT_POLICY, String(userId)), accountKey(SECOND_FACTOR_RECOVERY_POLICY, String(userId))];
}
