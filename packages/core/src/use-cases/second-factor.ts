/**
 * The seam every second factor plugs into (docs/decisions/0043-login-challenge-and-statuses.md):
 *
 * - **The login challenge.** For an account with a factor on, the right password starts a challenge
 *   (`startChallenge`), not a session: a random token for the `sl_login` cookie, stored as its
 *   digest, bound to the credential generation the password was checked under, short-lived
 *   (LOGIN_CHALLENGE_TTL_MS) and single-use.
 * - **The second step** (`finishLogin`) takes the challenge and a verifier of one kind of factor
 *   (TOTP, recovery code, passkey), and starts the session when the verifier says yes. Wrong answers
 *   count per challenge (MAX_CHALLENGE_FAILURES, then it dies) and per account, whatever device
 *   proof or session comes along (SECOND_FACTOR_LIMIT; SECOND_FACTOR_RECOVERY_LIMIT past it).
 * - **The step-up** (`recordStepUp`, `requireStepUp`): "a factor was verified for this session at
 *   T". With a factor on, the owner's changes (password, address, deletion, renewing the recovery
 *   codes) need one within `stepUpWindowMs`, or a code in their body. Adding or removing a way to
 *   sign in needs more: the proof in its own request (`proveOwner`, two-factor.ts).
 *
 * A new kind (passkeys) adds a `FactorSource` (whether an account has it on) and calls
 * `finishLogin` with its own verifier and `recordStepUp` from its own step-up route.
 */
import { LoginChallengeInvalid, InvalidCode, RateLimited, SecondFactorRequired, Unauthenticated } from '../errors.ts';
import type { AccountMail } from '../ports.ts';
import { accountKey, countRequest, refundRequest, SECOND_FACTOR_ACCOUNT_POLICY, SECOND_FACTOR_LIMIT, SECOND_FACTOR_RECOVERY_LIMIT, SECOND_FACTOR_RECOVERY_POLICY, type Counted, type Tally } from '../rate-limits.ts';
import type { FactorKind, LoginChallenge, User, UserRecord } from '../store.ts';
import { digestToken } from '../system.ts';
import type { UseCaseContext } from './context.ts';
import type { RequestMeta } from './request.ts';
import { issueSession, type IssuedSession } from './sessions.ts';
import type { IssuedDeviceProof } from '../device-proofs.ts';

/** A login that finished: its user, session and device proof (signup.ts's `SignedIn`, named here so that this module imports no use case). */
export interface FinishedLogin {
  readonly user: User;
  readonly session: IssuedSession;
  readonly device: IssuedDeviceProof;
}

/** How long a login challenge lives: 5 minutes from the right password to the second step. */
export const LOGIN_CHALLENGE_TTL_MS = 5 * 60_000;

/** Wrong second steps one challenge takes before it dies (the password is asked again). */
export const MAX_CHALLENGE_FAILURES = 5;

/** A login challenge just started: the token for the `sl_login` cookie, and the kinds the account can finish it with. */
export interface StartedChallenge {
  /** The raw token: give it to the client (the `sl_login` cookie), never store or log it. */
  readonly token: string;
  readonly expiresAt: Date;
  readonly maxAgeSeconds: number;
  /** The kinds of factor the account has on, in the order of `context.factorSources`. */
  readonly methods: readonly FactorKind[];
}

/** A login that needs its second step: the login use case answers this instead of a session. */
export interface SecondFactorNeeded {
  readonly secondFactor: StartedChallenge;
}

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

/**
 * Starts a login challenge for an account whose password was right under `record`'s generation;
 * `null` when the account's credentials changed meanwhile (nothing is stored; the login fails as
 * a login whose session insert found a stale generation does).
 */
export async function startChallenge(context: UseCaseContext, record: UserRecord, methods: readonly FactorKind[]): Promise<StartedChallenge | null> {
  const { tokens, clock, store } = context.ports;
  const token = tokens.generate();
  const createdAt = clock.now();
  const expiresAt = new Date(createdAt.getTime() + LOGIN_CHALLENGE_TTL_MS);
  const stored = await store.loginChallenges.put({ tokenDigest: digestToken(token), userId: record.id, credentialGeneration: record.credentialGeneration, failures: 0, createdAt, expiresAt });
  if (!stored) return null;
  return { token, expiresAt, maxAgeSeconds: LOGIN_CHALLENGE_TTL_MS / 1000, methods };
}

/** What a verifier found: the kind of factor verified, and a notice to queue with the session (a recovery code's). */
export interface VerifiedFactor {
  readonly kind: FactorKind;
}

/**
 * A kind of factor's check of a login's second step, for the challenge's account: the factor it
 * verified, or `null` when the answer is wrong (a code used already is wrong). It may consume what
 * it checks (a TOTP step, a recovery code): it runs only for a challenge this request took.
 */
export type FactorVerifier = (challenge: LoginChallenge) => Promise<VerifiedFactor | null>;

/**
 * The second step of a login: takes the presented challenge (single use: of two requests with one
 * challenge, one gets it), counts the attempt per account (`countAnswer`; `unguessable` for a
 * recovery code or an assertion), asks `verify`, and on success starts the session under the challenge's generation (with the new-device notice, as a login) and
 * records a step-up for it. A wrong answer puts the challenge back with one more failure, until
 * MAX_CHALLENGE_FAILURES. Throws LoginChallengeInvalid, InvalidCode or RateLimited.
 */
export async function finishLogin(
  context: UseCaseContext,
  challengeToken: string | null | undefined,
  meta: RequestMeta,
  verify: FactorVerifier,
  tally: Tally,
  newDeviceNotice: (record: UserRecord, meta: RequestMeta) => Promise<AccountMail | null>,
  unguessable = false,
): Promise<FinishedLogin> {
  const { store, clock } = context.ports;
  if (!challengeToken) throw new LoginChallengeInvalid();
  const challenge = await store.loginChallenges.take(digestToken(challengeToken), clock.now());
  if (!challenge) throw new LoginChallengeInvalid();
  // A challenge its account's credentials moved past (a password change or reset, a factor added or
  // removed) is dead before anything is checked: a right code keeps its step, a wrong one does not count.
  const current = await store.users.findById(challenge.userId);
  if (!current || current.credentialGeneration !== challenge.credentialGeneration) throw new LoginChallengeInvalid();
  // One bound per account, whatever device proof comes along: a budget per proof multiplied it.
  const attempt = await countAnswer(context, challenge.userId, tally, unguessable);
  const verified = await verify(challenge);
  if (!verified) {
    const failures = challenge.failures + 1;
    // Back under its own digest, with one more failure, while its generation holds; dead at the bound.
    if (failures < MAX_CHALLENGE_FAILURES && challenge.expiresAt.getTime() > clock.now().getTime()) await store.loginChallenges.put({ ...challenge, failures });
    throw new InvalidCode();
  }
  await refundRequest(store.rateLimiter, attempt, clock.now(), tally);
  const record = await store.users.findById(challenge.userId);
  if (!record || record.credentialGeneration !== challenge.credentialGeneration) throw new LoginChallengeInvalid();
  const device = await context.devices.verify(meta.deviceProof, challenge.userId);
  const notice = device ? null : await newDeviceNotice(record, meta);
  // The session is stored only while the generation the password was checked under is current: a
  // password change, reset or deletion since voids the challenge.
  const session = await issueSession(context, record.id, challenge.credentialGeneration, notice);
  if (!session) throw new LoginChallengeInvalid();
  await recordStepUp(context, digestToken(session.token), verified.kind);
  const user: User = { id: record.id, name: record.name, email: record.email, emailVerified: record.emailVerified };
  return { user, session, device: await context.devices.issue(user.id) };
}

/** Records that a factor of `kind` was verified for the session with this digest now (a step-up). */
export async function recordStepUp(context: UseCaseContext, sessionDigest: string, kind: FactorKind): Promise<void> {
  const { store, clock } = context.ports;
  if (!(await store.stepUps.record(sessionDigest, kind, clock.now()))) throw new Unauthenticated();
}

/** Whether the session verified a factor within `context.stepUpWindowMs`. */
export async function hasRecentStepUp(context: UseCaseContext, sessionDigest: string): Promise<boolean> {
  const { store, clock } = context.ports;
  const stepUp = await store.stepUps.find(sessionDigest);
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
  if (!(await hasRecentStepUp(context, sessionDigest))) throw new SecondFactorRequired();
}

/**
 * Counts one second-factor answer for the account (SECOND_FACTOR_LIMIT), whatever session or
 * device proof sent it. An `unguessable` answer (a recovery code, a passkey assertion) is still
 * checked once that bound is spent, counted under SECOND_FACTOR_RECOVERY_LIMIT instead: strangers
 * who have the password and spent the 10 with wrong TOTP codes do not lock the owner out.
 * Throws RateLimited.
 */
export async function countAnswer(context: UseCaseContext, userId: number, tally: Tally, unguessable = false): Promise<Counted> {
  const { store, clock } = context.ports;
  try {
    return await countRequest(store.rateLimiter, SECOND_FACTOR_ACCOUNT_POLICY, accountKey(SECOND_FACTOR_ACCOUNT_POLICY, String(userId)), SECOND_FACTOR_LIMIT, clock.now(), tally);
  } catch (error) {
    if (!unguessable || !(error instanceof RateLimited)) throw error;
    return countRequest(store.rateLimiter, SECOND_FACTOR_RECOVERY_POLICY, accountKey(SECOND_FACTOR_RECOVERY_POLICY, String(userId)), SECOND_FACTOR_RECOVERY_LIMIT, clock.now(), tally);
  }
}
