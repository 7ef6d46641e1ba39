/**
 * TOTP codes (RFC 6238) through the `otpauth` package (no hand-written HOTP): SHA-1, 6 digits,
 * 30-second steps, one step either side accepted. A code works once: the step it matched is
 * recorded per account with a compare-and-set in the store (`totp.useStep`), so a replay is refused
 * in every process. And the step-up of an owner's change, which such a code may give.
 */
import { Secret, TOTP } from 'otpauth';
import { SecondFactorUnavailable, WrongCode } from '../errors.ts';
import { refundRequest, type Tally } from '../rate-limits.ts';
import type { FactorKind, TotpFactor } from '../store.ts';
import type { SecretBox } from '../secrets.ts';
import type { UseCaseContext } from './context.ts';
import { countAnswer, requireStepUp } from './second-factor.ts';
import type { SignedInSession } from './sessions.ts';

/** The TOTP parameters authenticator apps read from the URI: RFC 6238's defaults, which every app supports. */
export const TOTP_ALGORITHM = 'SHA1';
export const TOTP_DIGITS = 6;
export const TOTP_PERIOD_SECONDS = 30;
/** Steps accepted either side of the current one (clock drift, a code typed as it changed). */
export const TOTP_WINDOW = 1;
/** Where the secret of an account is sealed to: a box moved to another account does not open. */
export const secretContext = (userId: number) => `totp:${userId}`;

/** A code as typed: spaces and dashes dropped ("123 456"). */
const digits = (code: string) => code.replace(/[\s-]/g, '');

export function totpOf(context: UseCaseContext, secret: string, label = ''): TOTP {
  return new TOTP({ issuer: context.totpIssuer, label, algorithm: TOTP_ALGORITHM, digits: TOTP_DIGITS, period: TOTP_PERIOD_SECONDS, secret: Secret.fromBase32(secret) });
}

/**
 * The time step `code` matches for the factor's secret now (within TOTP_WINDOW), or `null`. The
 * secret is opened here and nowhere else; without a key it cannot be (SecondFactorUnavailable).
 */
export function matchingStep(context: UseCaseContext, factor: TotpFactor, code: string): number | null {
  const { secrets } = context;
  if (!secrets) throw new SecondFactorUnavailable();
  const opened = openSecret(secrets, factor);
  return stepOf(context, parsePending(opened)?.secret ?? opened, code);
}

/** The time step `code` matches for `secret` now (within TOTP_WINDOW), or `null`. */
export function stepOf(context: UseCaseContext, secret: string, code: string): number | null {
  const token = digits(code);
  if (!/^\d{6}$/.test(token)) return null;
  const timestamp = context.ports.clock.now().getTime();
  const delta = totpOf(context, secret).validate({ token, timestamp, window: TOTP_WINDOW });
  if (delta === null) return null;
  return TOTP.counter({ period: TOTP_PERIOD_SECONDS, timestamp }) + delta;
}

/**
 * An enrolment's secret, sealed with the credential generation its start's proof was checked under
 * (`<generation>:<secret>`): the confirmation takes it only at that generation, so a password change,
 * a reset or a factor added since voids an enrolment a thief started with the old password. Turned
 * on, the factor keeps the same sealed text (the store's `enable` compares it), and a code is checked
 * against the secret after the colon; a factor enrolled before this has the bare secret.
 */
export function sealPending(secrets: SecretBox, userId: number, generation: number, secret: string): string {
  return secrets.seal(`${generation}:${secret}`, secretContext(userId));
}

/** A pending factor's generation and secret; `null` for one sealed before generations were (start it again). */
export function openPending(secrets: SecretBox, factor: TotpFactor): { readonly generation: number; readonly secret: string } | null {
  return parsePending(openSecret(secrets, factor));
}

function parsePending(opened: string): { readonly generation: number; readonly secret: string } | null {
  const match = /^(\d+):([A-Z2-7]+=*)$/.exec(opened);
  return match ? { generation: Number(match[1]), secret: match[2]! } : null;
}

/**
 * The factor's secret in the clear. One that does not open was sealed under another key (the start
 * checks the newest factor only, ADR 48) or changed in the database: the code cannot be checked,
 * which is the service's state, not the owner's mistake: 503, never a wrong code or a 500.
 */
function openSecret(secrets: SecretBox, factor: TotpFactor): string {
  try {
    return secrets.open(factor.sealedSecret, secretContext(factor.userId));
  } catch {
    throw new SecondFactorUnavailable('Two-factor codes cannot be checked right now: the service cannot open this account\'s secret (its SECRETS_KEY is not the one the secret was sealed under)');
  }
}

/** Checks a code against the account's factor (on) and uses its step: whether it passed. A replayed code (its step or a later one used) fails. */
export async function useTotpCode(context: UseCaseContext, userId: number, code: string): Promise<boolean> {
  const factor = await context.ports.store.totp.find(userId);
  if (!factor?.enabled) return false;
  const step = matchingStep(context, factor, code);
  return step !== null && context.ports.store.totp.useStep(userId, step);
}

/**
 * A code a signed-in owner gives to confirm a change, counted against the account's bound on wrong
 * codes (SECOND_FACTOR_LIMIT, whatever session sends it) and taken back when right. Throws WrongCode or RateLimited.
 */
export async function confirmCode(context: UseCaseContext, session: SignedInSession, code: string, tally: Tally): Promise<FactorKind> {
  const { store, clock } = context.ports;
  const attempt = await countAnswer(context, session.user.id, tally);
  if (!(await useTotpCode(context, session.user.id, code))) throw new WrongCode();
  await refundRequest(store.rateLimiter, attempt, clock.now(), tally);
  return 'totp';
}

/**
 * The step-up of an owner's change (see `requireStepUp`): with a factor on, `code` (TOTP, checked
 * and used here) or a factor verified for this session within the window. Throws
 * SecondFactorRequired, WrongCode or RateLimited.
 */
export function stepUp(context: UseCaseContext, session: SignedInSession, code: string | undefined, tally: Tally): Promise<void> {
  return requireStepUp(context, session.digest, session.user.id, code === undefined ? null : () => confirmCode(context, session, code, tally));
}

