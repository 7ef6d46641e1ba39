/**
 * Request schemas: the single source of truth for field bounds. They validate requests, and the
 * OpenAPI document is generated from them.
 */
import { z } from 'zod';
import { ValidationError } from './errors.ts';

/** Counts Unicode code points, as JSON Schema's `minLength`/`maxLength` do (not UTF-16 units). */
export function countCharacters(value: string): number {
  let n = 0;
  for (const _ of value) n++;
  return n;
}

/** U+0000 and unpaired surrogates: text no store can keep as it is (a database's text type refuses the one and rewrites the other). */
const ILL_FORMED = /[\0\p{Cs}]/u;
const ILL_FORMED_ALL = /[\0\p{Cs}]/gu;

/** `text` with U+0000 and every unpaired surrogate replaced by U+FFFD. */
export function toWellFormed(text: string): string {
  return text.replace(ILL_FORMED_ALL, '\uFFFD');
}

/** Refuses U+0000 and unpaired surrogates, so every store keeps exactly what the core accepted. */
/** Whether `value` holds no U+0000 and no unpaired surrogate: text every store keeps as it is given. */
export const isWellFormedText = (value: string): boolean => !ILL_FORMED.test(value);

function wellFormed(ctx: { value: string; issues: unknown[] }): void {
  if (ILL_FORMED.test(ctx.value)) {
    ctx.issues.push({ code: 'custom', input: ctx.value, message: 'must not contain U+0000 or unpaired surrogates' });
  }
}

/**
 * Marks a field whose bounds apply after trimming, so the published JSON Schema can say so (the
 * OpenAPI document turns the bounds into a pattern that allows the surrounding white space).
 */
const TRIMMED = { 'x-trimmed': true } as const;

/**
 * A string whose length, in characters, lies within the bounds. The bounds are written once and
 * published to JSON Schema as `minLength`/`maxLength`.
 */
function text(bounds: { readonly min?: number; readonly max?: number }, options: { trim?: boolean } = {}) {
  const { min, max } = bounds;
  const base = options.trim ? z.string().check(wellFormed).trim() : z.string().check(wellFormed);
  return base
    .check((ctx) => {
      if (ctx.issues.length > 0) return;
      if (min === undefined && max === undefined) return;
      const n = countCharacters(ctx.value);
      if (min !== undefined && n < min) {
        ctx.issues.push({
          code: 'too_small', origin: 'string', minimum: min, inclusive: true, input: ctx.value,
          message: `must be at least ${min} characters`,
        });
      } else if (max !== undefined && n > max) {
        ctx.issues.push({
          code: 'too_big', origin: 'string', maximum: max, inclusive: true, input: ctx.value,
          message: `must be at most ${max} characters`,
        });
      }
    })
    .meta({ ...(min === undefined ? {} : { minLength: min }), ...(max === undefined ? {} : { maxLength: max }), ...(options.trim ? TRIMMED : {}) });
}


/**
 * Refuses an address that Unicode's compatibility normalisation (NFKC) would rewrite, such as one
 * typed with U+212A KELVIN SIGN, which lower-casing turns into `k`: the address stored, looked up and
 * mailed would not be the one typed (and one inbox could be named in two spellings). Checked on the
 * trimmed text, before lower-casing hides it.
 */
function inNormalForm(ctx: { value: string; issues: unknown[] }): void {
  if (ctx.value.normalize('NFKC') !== ctx.value) {
    ctx.issues.push({ code: 'custom', input: ctx.value, message: 'must be written as it is delivered: it contains characters that Unicode normalisation (NFKC) rewrites' });
  }
}

/** E-mail: trimmed and lower-cased before it is validated, stored or looked up; refused when NFKC would change it. */
function email(bounds: { readonly max?: number } = {}) {
  const format = z.email({ message: 'must be a valid e-mail address' });
  return z
    .string()
    .check(wellFormed)
    .trim()
    .check(inNormalForm)
    .toLowerCase()
    .pipe(bounds.max === undefined ? format : format.max(bounds.max, { message: `must be at most ${bounds.max} characters` }))
    .meta(TRIMMED);
}

/** Control characters (C0, DEL, C1): a line break, an escape sequence. Nothing printable. The class `\p{Cc}`. */
export const CONTROL_CHARACTERS = '[\\u0000-\\u001F\\u007F-\\u009F]';
/** Bidirectional embeddings, overrides and isolates, which reorder the text around them on screen (marks stay: they only set a direction). */
export const BIDI_CONTROLS = '[\\u202A-\\u202E\\u2066-\\u2069]';
/**
 * Characters with nothing to see: white space and default-ignorable characters (zero-width spaces
 * and joiners, fillers, format marks), `[\p{White_Space}\p{Default_Ignorable_Code_Point}]` written
 * out (for Unicode 16), so the published schema says the same as the check; a test holds it to
 * the properties. A pattern for the `u` flag, as JSON Schema's and ajv's.
 */
export const INVISIBLE_CHARACTERS =
  '[\\u0009-\\u000D\\u0020\\u0085\\u00A0\\u00AD\\u034F\\u061C\\u115F-\\u1160\\u1680\\u17B4-\\u17B5\\u180B-\\u180F\\u2000-\\u200F\\u2028-\\u202F\\u205F-\\u206F\\u3000\\u3164\\uFE00-\\uFE0F\\uFEFF\\uFFA0\\uFFF0-\\uFFF8\\u{1BCA0}-\\u{1BCA3}\\u{1D173}-\\u{1D17A}\\u{E0000}-\\u{E0FFF}]';

/**
 * The same class without the characters beyond U+FFFF, for the published schema: a pattern with
 * `\u{…}` escapes needs JavaScript's `u` flag, which Python's `re` and JavaScript without the flag do
 * not read, and no other escape writes a character beyond U+FFFF the same in every dialect. Names made
 * only of those characters are refused by the check below alone (the schema's description says so).
 */
export const INVISIBLE_BMP_CHARACTERS = INVISIBLE_CHARACTERS.replace(/\\u\{[0-9A-F]+\}-\\u\{[0-9A-F]+\}/g, '');
/**
 * JavaScript's `\s` (WhiteSpace and LineTerminator, which `String.prototype.trim` removes) written
 * out, for published patterns: Python's `\s` is another set (it holds U+0085 and U+001C-U+001F, not
 * U+FEFF).
 */
export const WHITE_SPACE = '[\\u0009-\\u000D\\u0020\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000\\uFEFF]';
/** A surrogate pair: one character beyond U+FFFF where a pattern is read without the `u` flag (never matches with it, or in Python). */
const SURROGATE_PAIR = '[\\uD800-\\uDBFF][\\uDC00-\\uDFFF]';
/**
 * One character that is not white space, counted as one in every dialect: a surrogate pair, or one
 * that is no surrogate (an unpaired one is refused anyway), so that no dialect splits a pair in two.
 */
export const NOT_WHITE_SPACE = `(?:${SURROGATE_PAIR}|[^${WHITE_SPACE.slice(1, -1)}\\uD800-\\uDFFF])`;
/** Any one character, counted as one in every dialect, so that `{0,118}` bounds the same length everywhere. */
export const ANY_CHARACTER = `(?:${SURROGATE_PAIR}|[^\\uD800-\\uDFFF])`;

const CONTROL = new RegExp(CONTROL_CHARACTERS, 'u');
const BIDI_CONTROL = new RegExp(BIDI_CONTROLS, 'u');
// The class holds combining marks on purpose (U+034F, the variation selectors): each is matched alone.
// eslint-disable-next-line no-misleading-character-class
const INVISIBLE = new RegExp(`^${INVISIBLE_CHARACTERS}+$`, 'u');

/**
 * The name rules as JSON Schema says them of the text a client sends, before trimming (the checks
 * below see it trimmed): no control character that trimming keeps (one that is no white space, or
 * one between two characters that are not), no bidirectional control, and not only invisible
 * characters with at least one that trimming keeps. Written so that JavaScript with or without the
 * `u` flag and Python's `re` read them alike (white space spelled out; the invisible class of the
 * Basic Multilingual Plane).
 */
const NAME_REFUSES = {
  anyOf: [
    { pattern: `(?!${WHITE_SPACE})${CONTROL_CHARACTERS}|${NOT_WHITE_SPACE}[\\s\\S]*${CONTROL_CHARACTERS}[\\s\\S]*${NOT_WHITE_SPACE}` },
    { pattern: BIDI_CONTROLS },
    { pattern: `^${INVISIBLE_BMP_CHARACTERS}*(?!${WHITE_SPACE})${INVISIBLE_BMP_CHARACTERS}+$` },
  ],
};

/**
 * What a name may be (a user's, a contact form's): it is shown to others and written into mails, so
 * it holds no control characters, no bidirectional controls, and something visible when it is not
 * empty. Checked after trimming.
 */
function displayable(ctx: { value: string; issues: unknown[] }): void {
  const problem = CONTROL.test(ctx.value)
    ? 'must not contain control characters'
    : BIDI_CONTROL.test(ctx.value)
      ? 'must not contain bidirectional embedding, override or isolate characters'
      : ctx.value !== '' && INVISIBLE.test(ctx.value)
        ? 'must contain a visible character'
        : null;
  if (problem) ctx.issues.push({ code: 'custom', input: ctx.value, message: problem });
}

/** A name: trimmed, bounded, displayable. */
function name(bounds: { readonly min?: number; readonly max: number }) {
  return text(bounds, { trim: true }).check(displayable).meta({ not: NAME_REFUSES });
}

/** The signup bounds of a password, for every new one. */
const newPassword = () => text({ min: 8, max: 200 });

/** A TOTP code as an authenticator app shows it (6 digits; spaces and dashes are dropped). */
const totpCode = () => text({ min: 1, max: 20 }).meta({ description: 'The 6-digit code the authenticator app shows now (spaces allowed).', example: '123456' });

/** A recovery code as it was shown (`xxxxx-xxxxx`; case, spaces and dashes do not matter). */
const recoveryCode = () => text({ min: 1, max: 64 }).meta({ description: 'One of the recovery codes shown when the factor was turned on.', example: 'k3j9q-x7p2m' });

/** The step-up code an owner's change may carry (see docs/decisions/0044-step-up-and-secrets-at-rest.md). */
const stepUpCode = () => totpCode().optional().meta({ description: 'With two-factor authentication on: a current TOTP code, unless a factor was verified for this session in the last minutes.' });

/**
 * Whether `value` is a path on this origin to send a browser back to: it starts with one `/`, and
 * neither it nor any decoding of it holds a backslash, a second leading slash or a control
 * character, nor resolves (dot segments removed) to a path that starts with two slashes, so no
 * browser reads it as another host (`//evil.example`, `/\\evil.example`, `/%2F%2Fevil.example`,
 * `/.//evil.example`).
 */
export function isLocalPath(value: string): boolean {
  let current = value;
  for (let round = 0; round < 4; round++) {
    if (!current.startsWith('/') || current.startsWith('//') || current.includes('\\') || CONTROL.test(current)) return false;
    const url = URL.parse(current, 'https://origin.invalid');
    // Dot segments resolve away: `/.//evil.example` is the path `//evil.example`, which a Location reads as a host.
    if (!url || url.origin !== 'https://origin.invalid' || url.pathname.startsWith('//')) return false;
    let decoded: string;
    try {
      decoded = decodeURIComponent(current);
    } catch {
      return false;
    }
    if (decoded === current) return true;
    current = decoded;
  }
  return false;
}

/** Where to send the browser when a sign-in through a provider ends: a path on this origin. */
const returnTo = () =>
  text({ min: 1, max: 2000 })
    .check((ctx) => {
      if (!isLocalPath(ctx.value)) ctx.issues.push({ code: 'custom', input: ctx.value, message: 'must be a path on this site, starting with a single /' });
    })
    .optional()
    .meta({ description: 'A path on this site to send the browser back to when the sign-in ends (default the service’s root).', example: '/account' });

/** The body starting a sign-in through an identity provider. */
export const ProviderSignInRequest = z
  .object({
    returnTo: returnTo(),
  })
  .meta({ id: 'ProviderSignInRequest' });


/** Signup's body. */
export const SignupRequest = z
  .object({
    name: name({ min: 2, max: 120 }),
    email: email({ max: 200 }),
    password: newPassword(),
  })
  .meta({ id: 'SignupRequest' });

/** Login's body. */
export const LoginRequest = z
  .object({
    email: email(),
    password: text({}),
  })
  .meta({ id: 'LoginRequest' });

/** The contact form's body. */
export const ContactRequest = z
  .object({
    name: name({ max: 120 }),
    email: email({ max: 200 }),
    message: text({ min: 10, max: 5000 }),
  })
  .meta({ id: 'ContactRequest' });

/** A password change's body. */
export const ChangePasswordRequest = z
  .object({
    currentPassword: text({}),
    newPassword: newPassword(),
    code: stepUpCode(),
  })
  .meta({ id: 'ChangePasswordRequest' });

/** A reset request's body. */
export const PasswordResetRequest = z
  .object({
    email: email({ max: 200 }),
  })
  .meta({ id: 'PasswordResetRequest' });

/** A reset confirmation's body. */
export const PasswordResetConfirmRequest = z
  .object({
    // A token is 43 base64url characters; the bound only keeps absurd input away from the digest.
    token: text({ min: 1, max: 200 }),
    newPassword: newPassword(),
  })
  .meta({ id: 'PasswordResetConfirmRequest' });

/** An account deletion's body. */
export const DeleteAccountRequest = z
  .object({
    password: text({}),
    code: stepUpCode(),
  })
  .meta({ id: 'DeleteAccountRequest' });

/** The body confirming a mailed verification or change-of-address link. */
export const EmailVerificationConfirmRequest = z
  .object({
    // A token is 43 base64url characters; the bound only keeps absurd input away from the digest.
    token: text({ min: 1, max: 200 }),
  })
  .meta({ id: 'EmailVerificationConfirmRequest' });

/** A change of address's body. */
export const EmailChangeRequest = z
  .object({
    newEmail: email({ max: 200 }),
    password: text({}),
    code: stepUpCode(),
  })
  .meta({ id: 'EmailChangeRequest' });

/**
 * The factor that proves the owner, beside the password, when a way to sign in is added or removed
 * on an account with a factor on (docs/decisions/0045-passkeys.md): a current TOTP code or a
 * recovery code; never a step-up window alone.
 */
const proofCode = () => totpCode().optional().meta({ description: 'With a second factor on: a current TOTP code (or send `recoveryCode`). A factor verified earlier for this session is not enough here.' });
const proofRecoveryCode = () => recoveryCode().optional().meta({ description: 'With a second factor on, instead of `code`: one of the recovery codes (it is used up).' });

/** At most one factor in a proof: which one was meant would otherwise be a guess. */
function oneFactor(keys: readonly string[]) {
  return (ctx: z.core.ParsePayload<Record<string, unknown>>) => {
    if (keys.filter((key) => ctx.value[key] !== undefined).length > 1) {
      ctx.issues.push({ code: 'custom', input: ctx.value, path: [], message: `send at most one of ${keys.join(', ')}` });
    }
  };
}

/** The body starting a link of an identity to the signed-in account: where to come back, and the proof. */
export const IdentityLinkRequest = z
  .object({
    returnTo: returnTo(),
    password: text({}).optional().meta({ description: 'The account’s password. An account made through a provider sets one through the reset mail first.' }),
    code: proofCode(),
    recoveryCode: proofRecoveryCode(),
  })
  .check(oneFactor(['code', 'recoveryCode']))
  .meta({ id: 'IdentityLinkRequest' });

/**
 * The body of a request that adds, removes or replaces a way to sign in and carries nothing else:
 * the password, and with a factor on a current code or a recovery code (`proveOwner`). Each use has
 * its own name in the OpenAPI document.
 */
const ownerProofRequest = (id: string) =>
  z
    .object({
      password: text({}),
      code: proofCode(),
      recoveryCode: proofRecoveryCode(),
    })
    .check(oneFactor(['code', 'recoveryCode']))
    .meta({ id });

/** The body that unlinks an identity. */
export const UnlinkIdentityRequest = ownerProofRequest('UnlinkIdentityRequest');

/** The body that starts TOTP enrolment. */
export const StartTotpRequest = z
  .object({
    password: text({}),
    recoveryCode: proofRecoveryCode(),
  })
  .meta({ id: 'StartTotpRequest' });

/** The body that turns TOTP on. */
export const ConfirmTotpRequest = z
  .object({
    code: totpCode(),
  })
  .meta({ id: 'ConfirmTotpRequest' });

/** The body that turns TOTP off. */
export const DisableTotpRequest = ownerProofRequest('DisableTotpRequest');

/** The body that renews the recovery codes: they are a way past the second factor, so the proof is in the request. */
export const RenewRecoveryCodesRequest = ownerProofRequest('RenewRecoveryCodesRequest');

/** A login's second step: a TOTP code or a recovery code, exactly one. */
export const SecondFactorLoginRequest = z
  .object({
    code: totpCode().optional(),
    recoveryCode: recoveryCode().optional(),
  })
  .check((ctx) => {
    if ((ctx.value.code === undefined) === (ctx.value.recoveryCode === undefined)) {
      ctx.issues.push({ code: 'custom', input: ctx.value, path: [], message: 'send exactly one of code and recoveryCode' });
    }
  })
  .meta({ id: 'SecondFactorLoginRequest' });

/** A change of name's body. */
export const UpdateProfileRequest = z
  .object({
    name: name({ min: 2, max: 120 }),
  })
  .meta({ id: 'UpdateProfileRequest' });

/**
 * What a browser's `navigator.credentials` answered, as JSON (`PublicKeyCredential.toJSON()`):
 * its shape is checked here and everything in it by `@simplewebauthn/server`. A credential ID is at
 * most 1,023 bytes (WebAuthn), 1,364 base64url characters; the bounds keep absurd input away.
 */
function credentialResponse() {
  // The fields WebAuthn's JSON names (RegistrationResponseJSON, AuthenticationResponseJSON), so the
  // published schema types them; those an answer may lack are optional, and the verification decides.
  const encoded = () => text({ min: 1, max: 16_384 }).optional();
  return z.looseObject({
    id: text({ min: 1, max: 1364 }),
    rawId: text({ min: 1, max: 1364 }),
    type: z.literal('public-key'),
    authenticatorAttachment: z.enum(['cross-platform', 'platform']).optional(),
    response: z.looseObject({
      clientDataJSON: text({ min: 1, max: 4096 }),
      attestationObject: encoded().meta({ description: 'A registration’s attestation (base64url).' }),
      authenticatorData: encoded().meta({ description: 'A sign-in’s authenticator data (base64url).' }),
      signature: encoded().meta({ description: 'A sign-in’s signature (base64url).' }),
      userHandle: text({ max: 1364 }).nullable().optional().meta({ description: 'A sign-in’s user handle (base64url), when the authenticator gives one.' }),
      transports: z.array(text({ max: 32 })).max(16).optional(),
    }),
  });
}

/** A passkey's name: trimmed, bounded, displayable, as a user's. */
const passkeyName = () => name({ min: 1, max: 64 });

/** The body that finishes a passkey's registration. */
export const PasskeyRegistrationRequest = z
  .object({
    response: credentialResponse(),
    name: passkeyName().optional(),
  })
  .meta({ id: 'PasskeyRegistrationRequest' });

/**
 * The proof that asks for a passkey's registration options, or removes a passkey: the password,
 * and with a factor on a current `code`, a `recoveryCode`, or `passkey` (an answer to
 * `POST /api/passkeys/step-up-options`).
 */
export const PasskeyProofRequest = z
  .object({
    password: text({}),
    code: proofCode(),
    recoveryCode: proofRecoveryCode(),
    passkey: credentialResponse().optional().meta({ description: 'With a second factor on, instead of `code`: what `navigator.credentials.get()` answered to `POST /api/passkeys/step-up-options` (`toJSON()`).' }),
  })
  .check(oneFactor(['code', 'recoveryCode', 'passkey']))
  .meta({ id: 'PasskeyProofRequest' });

/** The body of a sign-in with a passkey. */
export const PasskeySignInRequest = z
  .object({
    response: credentialResponse(),
  })
  .meta({ id: 'PasskeySignInRequest' });

/** A passkey's new name. */
export const PasskeyRenameRequest = z
  .object({
    name: passkeyName(),
  })
  .meta({ id: 'PasskeyRenameRequest' });

/** A signup body after parsing. */
export type SignupInput = z.output<typeof SignupRequest>;
/** A login body after parsing. */
export type LoginInput = z.output<typeof LoginRequest>;
/** A contact body after parsing. */
export type ContactInput = z.output<typeof ContactRequest>;

/** Parses `input` or throws a `ValidationError` listing every problem. */
export function parseRequest<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input, {
    error: (issue) => {
      if (issue.input === undefined) return 'is required';
      if (issue.code === 'invalid_type') return `must be a ${issue.expected}`;
      return undefined;
    },
  });
  if (result.success) return result.data;
  throw new ValidationError(
    result.error.issues.map((issue) => ({
      path: issue.path.map(String).join('.'),
      message: issue.code === 'invalid_type' && issue.path.length === 0 ? 'the body must be a JSON object' : issue.message,
    })),
  );
}
