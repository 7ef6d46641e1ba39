import { activityEntry } from './activity-entries.ts';
import { DEVICE_LOGIN_POLICY } from '../device-proofs.ts';
import { failureSummary } from '../activity.ts';
import { AccountLocked, InvalidCredentials } from '../errors.ts';
import { ACCOUNT_LOGIN_POLICY, accountKey, countRequest, refundRequest, withQuota, type Quota, type Tally } from '../rate-limits.ts';
import { LoginRequest, parseRequest, SecondFactorLoginRequest } from '../schemas.ts';
import type { UseCaseContext } from './context.ts';
import { finishLogin, nextStep, type LoginStep, type SignedIn } from './login-flow.ts';
import { readBody, type RequestBody, type RequestMeta } from './request.ts';
import { useTotpCode } from './totp-codes.ts';
import { useRecoveryCode } from './two-factor.ts';

export interface LoginUseCases {
  /**
   * Checks credentials and starts a fresh session; a session the client presented is ended first.
   * Throws ValidationError, InvalidCredentials (also when the account's credentials changed while
   * the password was being checked) or RateLimited.
   */
  login(body: RequestBody, meta: RequestMeta): Promise<LoginStep & Quota>;
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
  const { users, rateLimiter } = store;
  const { accountRule, devices, notices } = context;
  /** Whether a login checks the presented device proofs: for its limit, or for the new-device notice. */
  const checksDevices = accountRule !== null || notices.enabled('new-device-sign-in');

  /** A failed sign-in, summarised: one row per account (or, `null`, per no account) and hour, counted, so a flood does not grow the log. */
  async function countFailure(userId: number | null, meta: RequestMeta): Promise<void> {
    const event = activityEntry(context, 'sign-in-failed', meta);
    await store.activity.count({ ...event, userId }, failureSummary(userId, event.at));
  }

  /** Login's steps, inside `withQuota`. */
  async function login(body: RequestBody, meta: RequestMeta, tally: Tally): Promise<LoginStep> {
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
      // The same statement as a known account's failure (its time tells nothing of registration):
      // counted on the hour's one row of failures at addresses that are nobody's.
      await countFailure(null, meta);
      throw new InvalidCredentials();
    }
    if (!(await hasher.verify(input.password, record.passwordHash))) {
      await countFailure(record.id, meta);
      throw new InvalidCredentials();
    }
    if (attempt) await refundRequest(rateLimiter, attempt, clock.now(), tally);
    // Locked by an operator: the right password says so (403), a wrong one failed as any does above.
    if (record.locked) throw new AccountLocked();
    const generation = record.credentialGeneration;
    // Only under the generation the check was made against: a password changed meanwhile stays.
    if (hasher.needsRehash(record.passwordHash)) await context.manager.replaceHash(record.id, generation, await hasher.hash(input.password));
    // The password was right when it was read: the flow's next step (a challenge with a second factor
    // on, else the session) goes on only while that generation is current, so a change, a reset or a
    // deletion committed while it was hashed leaves the old password having opened nothing. Signup
    // gives its client a proof, so the account's first sign-in from the browser that made it is no new device.
    return nextStep(context, { account: record, generation, newDevice: !device }, meta);
  }

  return {
    login: (body: RequestBody, meta: RequestMeta): Promise<LoginStep & Quota> => withQuota((tally) => login(body, meta, tally)),
    loginSecondFactor: (body: RequestBody, meta: LoginChallengeMeta) =>
      withQuota(async (tally) => {
        await context.limit('secondFactor', meta, tally);
        const input = parseRequest(SecondFactorLoginRequest, await readBody(body));
        // A TOTP code, or one recovery code (used up with its notice saying how many are left).
        let left: number | undefined;
        const signed = await finishLogin(
          context,
          meta.loginChallenge,
          meta,
          async ({ userId }) => {
            if (input.code !== undefined) return (await useTotpCode(context, userId, input.code)) ? { kind: 'totp' } : null;
            left = input.recoveryCode === undefined ? undefined : ((await useRecoveryCode(context, userId, input.recoveryCode, meta)) ?? undefined);
            return left === undefined ? null : { kind: 'recovery' };
          },
          tally,
          input.recoveryCode !== undefined,
        );
        return left === undefined ? signed : { ...signed, recoveryCodesLeft: left };
      }),
  };
}
