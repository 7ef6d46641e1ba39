/**
 * The login flow: every way to sign in is a first step, and every sign-in ends in `endSignIn`
 * (docs/decisions/0053-one-login-flow.md; Ory Kratos's login flow, strategies over one ending).
 *
 * | State           | Reached by                                                              | Ways out                                                                 |
 * |-----------------|-------------------------------------------------------------------------|--------------------------------------------------------------------------|
 * | `first-step`    | a way in: a password (`login`), a passkey alone (`signInWithPasskey`),  | refused (401, 429) · `nextStep`: `second-factor` when one factor was      |
 * |                 | and any added later (an identity provider)                              | checked and the account has a second on, else `signed-in`; a way that    |
 * |                 |                                                                         | proves a factor itself (a passkey) goes to `endSignIn` at once            |
 * | `second-factor` | `nextStep`: the `sl_login` challenge (the 202), `LOGIN_CHALLENGE_TTL_MS` | `finishLogin` with a right answer → `signed-in`; a wrong one → stays,     |
 * |                 |                                                                         | until MAX_CHALLENGE_FAILURES; expired, used, or the account's credentials |
 * |                 |                                                                         | moved → gone (log in again)                                               |
 * | `signed-in`     | `endSignIn` only                                                        | none here: logout, expiry, the cap or a credential change end the session |
 *
 * `endSignIn` is the one ending: the presented sessions end, the new-device notice goes with the
 * session when the client has no genuine device proof for the account, the session is stored under
 * the generation the credential was checked against with the cap applied, the verified factor is
 * the session's step-up, and a fresh device proof comes with it. No way in writes any of that again.
 */
import { activityEntry } from './activity-entries.ts';
import type { IssuedDeviceProof } from '../device-proofs.ts';
import { AccountLocked, InvalidCode, InvalidCredentials, LoginChallengeInvalid } from '../errors.ts';
import { accountKey, NEW_DEVICE_NOTICE_POLICY, refundRequest, type Tally } from '../rate-limits.ts';
import type { FactorKind, OneTimeToken, User, UserRecord } from '../store.ts';
import { digestToken } from '../system.ts';
import { accountNotice } from './account-notices.ts';
import type { UseCaseContext } from './context.ts';
import type { RequestMeta } from './request.ts';
import { countAnswer, factorMethods, hasSecondFactor, recordStepUp } from './second-factor.ts';
import { SESSION_TTL_MS, type IssuedSession } from './sessions.ts';

/** The state `signed-in`: the user, the session and the device proof (what signup, a login and a passkey answer). */
export interface SignedIn {
  readonly user: User;
  readonly session: IssuedSession;
  /** Proof that this client signed in to this account; give it to the client with the session. */
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

/** The state `second-factor`: what a first step answers instead of a session. */
export interface SecondFactorNeeded {
  readonly secondFactor: StartedChallenge;
}

/** The login's states, each with what a step answers in it (`first-step` is a request, answered by neither). */
export interface LoginStates {
  readonly 'signed-in': SignedIn;
  readonly 'second-factor': SecondFactorNeeded;
}

/** The name of a state a step leaves the login in. */
export type LoginState = keyof LoginStates;

/** What a first step answers: `signed-in` or `second-factor` (told apart by `'secondFactor' in step`). */
export type LoginStep = LoginStates[LoginState];

/** What a first step (or the second) checked: the account, and the generation its credential was checked under. */
export interface CheckedSignIn {
  /** The account as read before its credential was checked. */
  readonly account: User;
  /** The credential generation the check was made against: the session is stored only while it is current. */
  readonly generation: number;
  /** The factor this sign-in verified (a passkey, the second step's): recorded as the session's step-up. */
  readonly factor?: FactorKind;
  /**
   * Whether the client is new to the account, when the first step knows it already (a password login
   * checks the device proofs for its limit; a signup's client is the device that made the account).
   * Unset: `endSignIn` checks the presented proofs, when the new-device notice is on.
   */
  readonly newDevice?: boolean;
  /**
   * How the person signed in, as the activity log records it: `password`, `passkey`, `signup`, an
   * identity provider's name; default `second-factor` when a second step verified `factor`, else `password`.
   */
  readonly method?: string;
  /** The failure when the account's credentials changed meanwhile (nothing is stored); default InvalidCredentials. */
  readonly failure?: () => Error;
}

/** A way in's failure when the account's credentials moved, unless it names its own. */
const invalidCredentials = () => new InvalidCredentials();

/**
 * A first step that checked one factor (a password; an identity provider next): with a second factor
 * on (ADR 0043), the presented sessions end (the 202 clears the cookie) and a challenge starts, never
 * a session; otherwise the sign-in ends. Checked after the credential, so the answer tells no
 * stranger whether an account has a factor: one primary-key lookup per kind for an account without
 * one, and the kinds listed only for an account with one.
 */
export async function nextStep(context: UseCaseContext, checked: CheckedSignIn, meta: RequestMeta): Promise<LoginStep> {
  refuseLocked(checked.account);
  if (!(await hasSecondFactor(context, checked.account.id))) return endSignIn(context, checked, meta);
  await endPresentedSessions(context, meta);
  const secondFactor = await startChallenge(context, { id: checked.account.id, credentialGeneration: checked.generation }, await factorMethods(context, checked.account.id));
  if (!secondFactor) throw (checked.failure ?? invalidCredentials)();
  return { secondFactor };
}

/**
 * A locked account (issue 43) signs in by no method: checked on the account as the way in read it,
 * after its credential (a wrong one fails as any wrong one does). A lock committed after that read
 * moved the generation on, so the session's insert stores nothing: a lock racing a sign-in leaves no session.
 */
function refuseLocked(account: User | UserRecord): void {
  if ((account as Partial<UserRecord>).locked) throw new AccountLocked();
}

/** Ends every presented session, not only the first (one planted under a longer path would outlive the sign-in). */
async function endPresentedSessions(context: UseCaseContext, meta: RequestMeta): Promise<void> {
  const { sessions } = context.ports.store;
  const presented = meta.sessionToken;
  if (typeof presented === 'string') await sessions.delete(digestToken(presented));
  else if (presented) for (const token of presented) await sessions.delete(digestToken(token));
}

/**
 * Starts a login challenge for an account whose first factor was right under `record`'s generation;
 * `null` when the account's credentials changed meanwhile (nothing is stored; the login fails as a
 * login whose session insert found a stale generation does).
 */
export async function startChallenge(context: UseCaseContext, record: Pick<UserRecord, 'id' | 'credentialGeneration'>, methods: readonly FactorKind[]): Promise<StartedChallenge | null> {
  const { tokens, clock, store } = context.ports;
  const token = tokens.generate();
  const createdAt = clock.now();
  const expiresAt = new Date(createdAt.getTime() + LOGIN_CHALLENGE_TTL_MS);
  const challenge = { digest: digestToken(token), purpose: 'login', userId: record.id, credentialGeneration: record.credentialGeneration, email: null, data: null, failures: 0, createdAt, expiresAt } as const;
  const stored = await store.oneTimeTokens.put(challenge, { underGeneration: true });
  return stored ? { token, expiresAt, maxAgeSeconds: LOGIN_CHALLENGE_TTL_MS / 1000, methods } : null;
}

/** What a verifier found: the kind of factor verified. */
export interface VerifiedFactor {
  readonly kind: FactorKind;
}

/**
 * A kind of factor's check of a login's second step, for the challenge's account: the factor it
 * verified, or `null` when the answer is wrong (a code used already is wrong). It may consume what
 * it checks (a TOTP step, a recovery code): it runs only for a challenge this request took.
 */
export type FactorVerifier = (challenge: LoginChallenge) => Promise<VerifiedFactor | null>;

/** A login challenge as taken: a `login` token, always of an account under a generation. */
export type LoginChallenge = OneTimeToken & { readonly userId: number; readonly credentialGeneration: number };

/** Takes the login challenge with this token (`null`: unknown, used, expired, or not a login challenge). */
export async function takeLoginChallenge(context: UseCaseContext, challengeToken: string): Promise<LoginChallenge | null> {
  const { store, clock } = context.ports;
  const taken = await store.oneTimeTokens.take('login', digestToken(challengeToken), clock.now());
  return taken && taken.userId !== null && taken.credentialGeneration !== null ? { ...taken, userId: taken.userId, credentialGeneration: taken.credentialGeneration } : null;
}

/**
 * The second step (`second-factor` → `signed-in`): takes the presented challenge (single use: of two
 * requests with one challenge, one gets it), counts the attempt per account (`countAnswer`;
 * `unguessable` for a recovery code or an assertion), asks `verify`, and on success ends the sign-in
 * under the challenge's generation with the verified factor as its step-up. A wrong answer puts the
 * challenge back with one more failure, until MAX_CHALLENGE_FAILURES. Throws LoginChallengeInvalid,
 * InvalidCode or RateLimited.
 */
export async function finishLogin(context: UseCaseContext, challengeToken: string | null | undefined, meta: RequestMeta, verify: FactorVerifier, tally: Tally, unguessable = false): Promise<SignedIn> {
  const { store, clock } = context.ports;
  const challenge = challengeToken ? await takeLoginChallenge(context, challengeToken) : null;
  // A challenge its account's credentials moved past (a password change or reset, a factor added or
  // removed) is dead before anything is checked: a right code keeps its step, a wrong one does not count.
  const account = challenge && (await store.users.findById(challenge.userId));
  if (!challenge || !account || account.credentialGeneration !== challenge.credentialGeneration) throw new LoginChallengeInvalid();
  // One bound per account for codes, whatever device proof comes along (a budget per proof would
  // multiply the guesses at a TOTP code); only unguessable answers get the owner's browser's own window.
  const attempt = await countAnswer(context, challenge.userId, tally, unguessable && { deviceProof: meta.deviceProof });
  const verified = await verify(challenge);
  if (!verified) {
    const failures = challenge.failures + 1;
    // Back under its own digest, with one more failure, while its generation holds; dead at the bound.
    if (failures < MAX_CHALLENGE_FAILURES && challenge.expiresAt.getTime() > clock.now().getTime()) await store.oneTimeTokens.put({ ...challenge, failures }, { underGeneration: true });
    throw new InvalidCode();
  }
  await refundRequest(store.rateLimiter, attempt, clock.now(), tally);
  // Under the generation the first factor was checked against: a password change, reset or deletion
  // since (also while the answer was checked) voids the challenge, and no session is stored.
  return endSignIn(context, { account, generation: challenge.credentialGeneration, factor: verified.kind, failure: () => new LoginChallengeInvalid() }, meta);
}

/**
 * The one ending of a sign-in (`signed-in`): the presented sessions end; a client without a genuine
 * device proof for the account is a new device (or one whose proof expired or was cleared), and its
 * owner is told in the session's own transaction while the account's bound on such notices
 * (`newDeviceNoticeRule`) has room, so only a sign-in that succeeds queues one; the session is stored
 * under `checked.generation` with the cap (`maxSessions`: the oldest end), the verified factor is
 * its step-up, and a fresh device proof comes with it. Throws `checked.failure()` when the account's
 * credentials changed meanwhile: then nothing is stored.
 */
export async function endSignIn(context: UseCaseContext, checked: CheckedSignIn, meta: RequestMeta): Promise<SignedIn> {
  const { notices, newDeviceNoticeRule, devices, manager, maxSessions } = context;
  const { store, clock, tokens } = context.ports;
  const { account, generation } = checked;
  refuseLocked(account);
  await endPresentedSessions(context, meta);
  const newDevice = notices.enabled('new-device-sign-in') && (checked.newDevice ?? !(await devices.verify(meta.deviceProof, account.id)));
  // The notice's limiter step is counted before the session is stored, so a sign-in that then loses
  // its race with a change of credential may spend one of the hour's notices without sending it: the
  // bound errs toward fewer mails. The limiter key is one per account, whatever the way in.
  const noticeAllowed = newDevice && (!newDeviceNoticeRule || (await store.rateLimiter.consume(accountKey(NEW_DEVICE_NOTICE_POLICY, String(account.id)), newDeviceNoticeRule, clock.now())).allowed);
  const notice = noticeAllowed ? await accountNotice(context, 'new-device-sign-in', meta, account) : null;
  const token = tokens.generate();
  const createdAt = clock.now();
  const expiresAt = new Date(createdAt.getTime() + SESSION_TTL_MS);
  const method = checked.method ?? (checked.factor ? 'second-factor' : 'password');
  const event = activityEntry(context, 'signed-in', meta, { method, ...(checked.factor ? { factor: checked.factor } : {}), newDevice });
  if (!(await manager.startSession({ tokenDigest: digestToken(token), userId: account.id, credentialGeneration: generation, createdAt, expiresAt }, maxSessions, notice, event))) throw (checked.failure ?? invalidCredentials)();
  // A factor verified with the sign-in (a passkey, a second step): the session may make the owner's changes for the step-up's window.
  if (checked.factor) await recordStepUp(context, digestToken(token), checked.factor);
  const user: User = { id: account.id, name: account.name, email: account.email, emailVerified: account.emailVerified };
  return { user, session: { token, expiresAt, maxAgeSeconds: SESSION_TTL_MS / 1000 }, device: await devices.issue(account.id) };
}
