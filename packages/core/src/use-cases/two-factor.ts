/**
 * TOTP (RFC 6238) and recovery codes (docs/decisions/0043 and 0044). The code arithmetic is the
 * `otpauth` package's (no hand-written HOTP): SHA-1, 6 digits, 30-second steps, one step either
 * side accepted. A code works once: the step it matched is recorded per account with a
 * compare-and-set in the store (`totp.useStep`), so a replay is refused in every process.
 */
import { activityEntry } from './activity-entries.ts';
import { randomBytes } from 'node:crypto';
import { Secret } from 'otpauth';
import { SecondFactorRequired, SecondFactorUnavailable, TwoFactorState, Unauthenticated, WrongCode } from '../errors.ts';
import { refundRequest, withQuota, type Quota, type Tally } from '../rate-limits.ts';
import { ConfirmTotpRequest, DisableTotpRequest, parseRequest, RenewRecoveryCodesRequest, StartTotpRequest } from '../schemas.ts';
import type { UserRecord } from '../store.ts';
import { digestToken } from '../system.ts';
import { accountNotice } from './account-notices.ts';
import type { UseCaseContext } from './context.ts';
import { confirmPassword } from './password.ts';
import { readBody, type RequestBody, type RequestMeta } from './request.ts';
import { countAnswer, hasSecondFactor, recordStepUp } from './second-factor.ts';
import { confirmCode, openPending, sealPending, stepOf, totpOf } from './totp-codes.ts';
import { lostRace, signedIn, stillSignedIn, type SignedInSession } from './sessions.ts';

/** Recovery codes made at once. */
export const RECOVERY_CODE_COUNT = 10;

/** An enrolment started: what an authenticator app needs. Shown once; the secret is then only stored sealed. */
export interface TotpEnrolment {
  /** `otpauth://totp/<issuer>:<email>?secret=…&issuer=…&algorithm=SHA1&digits=6&period=30` (a QR code of it is what apps scan). */
  readonly otpauthUri: string;
  /** The secret, base32, for typing in by hand. */
  readonly secret: string;
}

/** The use cases of the second factor (TOTP and recovery codes). */
export interface TwoFactorUseCases {
  /** Starts (or restarts) TOTP enrolment after checking the password (and, with a passkey on, a recovery code). Throws Unauthenticated, ValidationError, WrongPassword, SecondFactorRequired, WrongCode, TwoFactorState (on already), SecondFactorUnavailable, RateLimited. */
  startTotp(body: RequestBody, meta: RequestMeta): Promise<TotpEnrolment & Quota>;
  /** Turns TOTP on with a code of the pending secret; answers the recovery codes (shown once). Ends the user's other sessions. Throws Unauthenticated, ValidationError, WrongCode, TwoFactorState (nothing pending), RateLimited. */
  confirmTotp(body: RequestBody, meta: RequestMeta): Promise<{ readonly recoveryCodes: readonly string[] } & Quota>;
  /** Turns TOTP off (and deletes the recovery codes unless a passkey is still on) after the password and a code or recovery code in the body (a step-up window is not enough). Ends the user's other sessions. */
  disableTotp(body: RequestBody, meta: RequestMeta): Promise<Quota>;
  /** Replaces the recovery codes (the old ones die) after a step-up; answers the new ones. Throws TwoFactorState when no factor is on. */
  renewRecoveryCodes(body: RequestBody, meta: RequestMeta): Promise<{ readonly recoveryCodes: readonly string[] } & Quota>;
}

/** A recovery code as typed, normalised: lower case, without spaces and dashes. */
const normaliseRecoveryCode = (code: string) => code.toLowerCase().replace(/[\s-]/g, '');

/** Crockford's base32 alphabet (no i, l, o, u): a recovery code reads aloud and types without ambiguity. */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** A recovery code: 10 characters (50 random bits) shown as `xxxxx-xxxxx`. */
function newRecoveryCode(): string {
  const bytes = randomBytes(10);
  let code = '';
  for (const byte of bytes) code += ALPHABET[byte & 31];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

/** The digest of a recovery code as stored: SHA-256 of its normal form (50 random bits: no salt or slow hash needed at SECOND_FACTOR_LIMIT). */
const recoveryDigest = (code: string) => digestToken(`recovery:${normaliseRecoveryCode(code)}`);

/** Ten fresh codes and their digests. */
export function recoveryCodes(): { readonly codes: string[]; readonly digests: string[] } {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  return { codes, digests: codes.map(recoveryDigest) };
}

/**
 * Uses the account's recovery code `code`, with its notice saying how many are left, in one unit of
 * work: how many are left, or `null` when the account has no such code (of concurrent uses, one
 * gets it). A recovery code finishes a login whatever the account's factor (TOTP or a passkey).
 */
export async function useRecoveryCode(context: UseCaseContext, userId: number, code: string, meta: RequestMeta): Promise<number | null> {
  const record = await context.ports.store.users.findById(userId);
  if (!record) return null;
  // Whether a notice goes at all (and as whose mail) is decided now, outside the unit of work;
  // its count of codes left is the unit's own.
  const sample = await accountNotice(context, 'recovery-code-used', meta, record, { remaining: 0 });
  // The sample's kind, absent when it has none (exactOptionalPropertyTypes: the packages' build refused `kind: undefined`).
  const notice = (remaining: number) => {
    if (!sample) return null;
    const { kind: _own, ...mail } = context.notices.notice('recovery-code-used', meta, { remaining })!;
    return sample.kind === undefined ? mail : { ...mail, kind: sample.kind };
  };
  return context.manager.useRecoveryCode(userId, recoveryDigest(code), notice, activityEntry(context, 'recovery-code-used', meta));
}

/** The refusal of a proof that came without a factor while one is on. */
export const PROOF_NEEDS_FACTOR = 'Adding or removing a way to sign in needs your second factor in this request: send a current code or a recovery code (for a passkey, or the answer of one of your passkeys) with the password';

/** What proves the owner in a request that adds or removes a way to sign in. */
export interface OwnerProof {
  readonly password: string;
  readonly code?: string | undefined;
  readonly recoveryCode?: string | undefined;
}

/**
 * The proof a request that adds or removes a way to sign in must carry (ADR 0045): the password,
 * always (every account has one), and with a second factor on one of its factors in the same body:
 * a current TOTP `code`, a `recoveryCode` (used up), or what `passkey` checks (an assertion made for
 * a step-up of this account; `null` when the request carried none). A session alone, or a factor
 * verified for it earlier (the step-up window), proves nothing here: a session can be stolen.
 * Answers the account's row read before the checks (its generation is what the change must still
 * find). Wrong answers count against the account's one bound on wrong codes (ADR 0047). Throws Unauthenticated, WrongPassword,
 * SecondFactorRequired, WrongCode or RateLimited.
 */
export async function proveOwner(context: UseCaseContext, session: SignedInSession, proof: OwnerProof, meta: RequestMeta, tally: Tally, passkey: (() => Promise<boolean>) | null = null): Promise<UserRecord> {
  const { store, clock } = context.ports;
  const record = await confirmPassword(context, session, proof.password, tally);
  if (!(await hasSecondFactor(context, record.id))) return record;
  if (proof.code !== undefined) {
    await recordStepUp(context, session.digest, await confirmCode(context, session, proof.code, tally));
    return record;
  }
  // No "verify it again" here: a step-up of the session is no proof for this.
  if (proof.recoveryCode === undefined && !passkey) throw new SecondFactorRequired(PROOF_NEEDS_FACTOR);
  // Counted against the account's one bound (a recovery code or passkey is unguessable: ADR 0047).
  const attempt = await countAnswer(context, record.id, tally, { deviceProof: meta.deviceProof });
  const verified = proof.recoveryCode !== undefined ? (await useRecoveryCode(context, record.id, proof.recoveryCode, meta)) !== null : await passkey!();
  if (!verified) throw new WrongCode();
  await refundRequest(store.rateLimiter, attempt, clock.now(), tally);
  await recordStepUp(context, session.digest, proof.recoveryCode !== undefined ? 'recovery' : 'passkey');
  return record;
}

export function twoFactorUseCases(context: UseCaseContext): TwoFactorUseCases {
  const { store, clock } = context.ports;

  return {
    startTotp: (body, meta) =>
      withQuota(async (tally) => {
        const session = await signedIn(context, meta);
        const input = parseRequest(StartTotpRequest, await readBody(body));
        if ((await store.totp.find(session.user.id))?.enabled) throw new TwoFactorState('Two-factor authentication is on already: turn it off first');
        // Adding a way to sign in: with another factor on (a passkey), the password and a recovery code.
        const record = await proveOwner(context, session, input, meta, tally);
        const { secrets } = context;
        if (!secrets) throw new SecondFactorUnavailable();
        const secret = new Secret({ size: 20 }).base32;
        // Bound to the generation the proof was checked under: the confirmation holds only while it is current.
        if (!(await store.totp.putPending(record.id, sealPending(secrets, record.id, record.credentialGeneration, secret), clock.now()))) {
          if (await store.users.findById(record.id)) throw new TwoFactorState('Two-factor authentication is on already: turn it off first');
          throw new Unauthenticated();
        }
        return { otpauthUri: totpOf(context, secret, record.email).toString(), secret };
      }),

    confirmTotp: (body, meta) =>
      withQuota(async (tally) => {
        const session = await signedIn(context, meta);
        const input = parseRequest(ConfirmTotpRequest, await readBody(body));
        const record = await store.users.findById(session.user.id);
        if (!record) throw new Unauthenticated();
        const factor = await store.totp.find(record.id);
        // Before anything is counted: a session alone (no enrolment of its own started with the
        // password) must not spend the account's bound on wrong codes, which its owner's logins share.
        if (!factor || factor.enabled) throw new TwoFactorState(factor ? 'Two-factor authentication is on already' : 'No enrolment started: POST /api/two-factor/totp first');
        const { secrets } = context;
        if (!secrets) throw new SecondFactorUnavailable();
        // Started under the generation it names, which must still be the account's: a password
        // change, a reset or a factor added since voids it (whoever started it had the old proof).
        const pending = openPending(secrets, factor);
        if (pending?.generation !== record.credentialGeneration) {
          // A change that ended this session moved it too: say that first.
          await stillSignedIn(context, session.digest);
          throw new TwoFactorState('The enrolment is void: the account’s credentials changed since it started. Start it again: POST /api/two-factor/totp');
        }
        // The enrolment's codes count against the account's bound, as every code a session sends.
        const attempt = await countAnswer(context, session.user.id, tally);
        const step = stepOf(context, pending.secret, input.code);
        if (step === null) throw new WrongCode();
        await refundRequest(store.rateLimiter, attempt, clock.now(), tally);
        const { codes, digests } = recoveryCodes();
        const notice = await accountNotice(context, 'two-factor-enabled', meta, record);
        const done = await context.manager.enableTotp(record.id, record.credentialGeneration, factor.sealedSecret, step, digests, session.digest, notice, activityEntry(context, 'factor-added', meta, { kind: 'totp' }));
        if (done === null) {
          await stillSignedIn(context, session.digest);
          throw new TwoFactorState('The enrolment changed meanwhile: start it again');
        }
        // The code just given is a factor verified for this session.
        await recordStepUp(context, session.digest, 'totp');
        return { recoveryCodes: codes };
      }),

    disableTotp: (body, meta) =>
      withQuota(async (tally) => {
        const session = await signedIn(context, meta);
        const input = parseRequest(DisableTotpRequest, await readBody(body));
        const factor = await store.totp.find(session.user.id);
        if (!factor?.enabled) throw new TwoFactorState('Two-factor authentication is not on');
        // Removing a way to sign in: the password and a current code (or a recovery code) in this body.
        const record = await proveOwner(context, session, input, meta, tally);
        const notice = await accountNotice(context, 'two-factor-disabled', meta, record);
        // The recovery codes stay while a passkey is still a factor: they stand in for it.
        const passkeysLeft = (await store.passkeys.listByUser(record.id)).length > 0;
        if ((await context.manager.disableTotp(record.id, record.credentialGeneration, session.digest, notice, passkeysLeft, activityEntry(context, 'factor-removed', meta, { kind: 'totp' }))) === null) throw await lostRace(context, session);
        return {};
      }),

    renewRecoveryCodes: (body, meta) =>
      withQuota(async (tally) => {
        const session = await signedIn(context, meta);
        const input = parseRequest(RenewRecoveryCodesRequest, await readBody(body));
        if (!(await hasSecondFactor(context, session.user.id))) throw new TwoFactorState('Two-factor authentication is not on');
        // New codes are a way past the second factor: the password and a factor in this request, as
        // for adding one (a factor verified for the session earlier is no proof: a session can be stolen).
        const record = await proveOwner(context, session, input, meta, tally);
        const { codes, digests } = recoveryCodes();
        const notice = await accountNotice(context, 'recovery-codes-renewed', meta, record);
        // Under the generation the proof was checked against: a factor removed meanwhile keeps its codes gone.
        if (!(await context.manager.renewRecoveryCodes(record.id, record.credentialGeneration, digests, session.digest, notice, activityEntry(context, 'recovery-codes-renewed', meta)))) throw await lostRace(context, session);
        return { recoveryCodes: codes };
      }),

  };
}
