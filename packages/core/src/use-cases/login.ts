import { DEVICE_LOGIN_POLICY } from '../device-proofs.ts';
import { InvalidCredentials } from '../errors.ts';
import type { User, UserRecord } from '../store.ts';
import { ACCOUNT_LOGIN_POLICY, accountKey, countRequest, NEW_DEVICE_NOTICE_POLICY, refundRequest, withQuota, type Quota, type Tally } from '../rate-limits.ts';
import { LoginRequest, parseRequest, SecondFactorLoginRequest } from '../schemas.ts';
import { digestToken } from '../system.ts';
import { accountNotice } from './account-notices.ts';
import type { UseCaseContext } from './context.ts';
import { readBody, type RequestBody, type RequestMeta } from './request.ts';
import { factorMethods, finishLogin, hasSecondFactor, startChallenge, type SecondFactorNeeded } from './second-factor.ts';
import { issueSession } from './sessions.ts';
import { codeVerifier } from './two-factor.ts';
import type { SignedIn } from './signup.ts';

export interface LoginUseCases {
  /**
   * Checks credentials and starts a fresh session; a session the client presented is ended first.
   * Throws ValidationError, InvalidCredentials (also when the account's credentials changed while
   * the password was being checked) or RateLimited.
   */
  login(body: RequestBody, meta: RequestMeta): Promise<(SignedIn | SecondFactorNeeded) & Quota>;
  /**
   * A login's second step: a TOTP `code` or a `recoveryCode` for the challenge the first step
   * started (`loginChallenge`, the `sl_login` cookie). Throws ValidationError, LoginChallengeInvalid,
   * InvalidCode or RateLimited. `recoveryCodesLeft` says how many remain when one was used.
   */
  loginSecondFactor(body: RequestBody, meta: LoginChallengeMeta): Promise<SignedIn & Quota & { readonly recoveryCodesLeft?: number }>;
}

/** A login's second step's request: the `sl_login` token besides what a login knows. */
export interface LoginChallengeMeta extends RequestMeta {
  /** The `sl_login` cookie's token, if the client sent one. */
  readonly loginChallenge?: string | null;
}

export function loginUseCases(context: UseCaseContext): LoginUseCases {
  const { store, hasher, clock } = context.ports;
  const { users, sessions, rateLimiter } = store;
  const { accountRule, devices, notices, newDeviceNoticeRule } = context;
  /** Whether a login checks the presented device proofs: for its limit, or for the new-device notice. */
  const checksDevices = accountRule !== null || notices.enabled('new-device-sign-in');

  /**
   * The new-device notice of a login whose password was right, while the account's bound on them
   * (`newDeviceNoticeRule`) has room: one more limiter step, on a new device's login only. Counted
   * before the session is stored, so a login that then loses its race with a change of credential
   * may spend one of the hour's notices without sending it: the bound errs toward fewer mails.
   */
  async function newDeviceNotice(record: UserRecord, meta: RequestMeta) {
    if (!notices.enabled('new-device-sign-in')) return null;
    if (newDeviceNoticeRule) {
      const hit = await rateLimiter.consume(accountKey(NEW_DEVICE_NOTICE_POLICY, String(record.id)), newDeviceNoticeRule, clock.now());
      if (!hit.allowed) return null;
    }
    return accountNotice(context, 'new-device-sign-in', meta, record);
  }

  /** Login's steps, inside `withQuota`. */
  async function login(body: RequestBody, meta: RequestMeta, tally: Tally): Promise<SignedIn | SecondFactorNeeded> {
    await context.limit('login', meta, tally);
    const input = parseRequest(LoginRequest, await readBody(body));
    // The account first: a device proof is bound to its id, and its credential generation, read
    // here before the password is hashed, is the one the session must still be issued under.
    const record = await users.findByEmail(input.email);
    // Every attempt on the account is counted before the password is checked, so concurrent
    // guesses cannot all pass one stale check; a successful login takes its count back. A client
    // with a genuine device proof for the account is counted on its own, so others' failures
    // cannot lock it out (and its own failures meet the same limit). An unknown address checks the
    // proofs all the same and is counted under its address alike.
    let attempt = null;
    const device = checksDevices ? await devices.verify(meta.deviceProof, record?.id ?? null) : null;
    if (accountRule) {
      attempt = device
        ? await countRequest(rateLimiter, DEVICE_LOGIN_POLICY, accountKey(DEVICE_LOGIN_POLICY, device), accountRule, clock.now(), tally)
        : await countRequest(rateLimiter, ACCOUNT_LOGIN_POLICY, accountKey(ACCOUNT_LOGIN_POLICY, input.email), accountRule, clock.now(), tally);
    }
    if (!record) {
      await hasher.verifyDummy(input.password);
      throw new InvalidCredentials();
    }
    if (!(await hasher.verify(input.password, record.passwordHash))) throw new InvalidCredentials();
    if (attempt) await refundRequest(rateLimiter, attempt, clock.now(), tally);
    const generation = record.credentialGeneration;
    // Only under the generation the check was made against: a password changed meanwhile stays.
    if (hasher.needsRehash(record.passwordHash)) await context.manager.replaceHash(record.id, generation, await hasher.hash(input.password));
    // Every presented session ends, not only the first: one planted under a longer path (sent
    // first) would otherwise outlive this login and shadow the fresh one.
    const presented = meta.sessionToken;
    if (typeof presented === 'string') await sessions.delete(digestToken(presented));
    else if (presented) for (const token of presented) await sessions.delete(digestToken(token));
    // An account with a second factor on gets a challenge, not a session (ADR 0043): the password
    // alone opens nothing. Checked after the password, so the answer tells no stranger whether an
    // account has a factor.
    // One primary-key lookup per kind for an account without a factor (TOTP's; passkeys add theirs);
    // the recovery codes are counted only for the answer of an account with one.
    if (await hasSecondFactor(context, record.id)) {
      const secondFactor = await startChallenge(context, record, await factorMethods(context, record.id));
      if (!secondFactor) throw new InvalidCredentials();
      return { secondFactor };
    }
    // The password was right when it was read; if it has changed since (a change, a reset, a
    // deletion committed while it was hashed), no session is stored and the old password has
    // opened nothing.
    // A client without a genuine proof for the account is a new device (or one whose proof expired
    // or was cleared): its owner is told, in the session's own transaction, so only a login that
    // succeeds queues a notice (a failed one costs nothing more). Signup gives its client a proof,
    // so the account's first sign-in from the browser that made it is no new device.
    const notice = device ? null : await newDeviceNotice(record, meta);
    const session = await issueSession(context, record.id, generation, notice);
    if (!session) throw new InvalidCredentials();
    const user: User = { id: record.id, name: record.name, email: record.email, emailVerified: record.emailVerified };
    return { user, session, device: await devices.issue(user.id) };
  }

  return {
    login: (body: RequestBody, meta: RequestMeta): Promise<(SignedIn | SecondFactorNeeded) & Quota> => withQuota((tally) => login(body, meta, tally)),
    loginSecondFactor: (body: RequestBody, meta: LoginChallengeMeta) =>
      withQuota(async (tally) => {
        await context.limit('secondFactor', meta, tally);
        const input = parseRequest(SecondFactorLoginRequest, await readBody(body));
        let left: number | undefined;
        const signed = await finishLogin(context, meta.loginChallenge, meta, codeVerifier(context, input, meta, (n) => (left = n)), tally, newDeviceNotice, input.recoveryCode !== undefined);
        return left === undefined ? signed : { ...signed, recoveryCodesLeft: left };
      }),
  };
}
