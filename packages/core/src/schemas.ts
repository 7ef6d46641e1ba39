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


/** E-mail: trimmed and lower-cased before it is validated, stored or looked up. */
function email(bounds: { readonly max?: number } = {}) {
  const format = z.email({ message: 'must be a valid e-mail address' });
  return z
    .string()
    .check(wellFormed)
    .trim()
    .toLowerCase()
    .pipe(bounds.max === undefined ? format : format.max(bounds.max, { message: `must be at most ${bounds.max} characters` }))
    .meta(TRIMMED);
}

/** The signup bounds of a password, for every new one. */
const newPassword = () => text({ min: 8, max: 200 });

/** Signup's body. */
export const SignupRequest = z
  .object({
    name: text({ min: 2, max: 120 }, { trim: true }),
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
    name: text({ max: 120 }, { trim: true }),
    email: email({ max: 200 }),
    message: text({ min: 10, max: 5000 }),
  })
  .meta({ id: 'ContactRequest' });

/** A password change's body. */
export const ChangePasswordRequest = z
  .object({
    currentPassword: text({}),
    newPassword: newPassword(),
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
  })
  .meta({ id: 'EmailChangeRequest' });

/** A change of name's body. */
export const UpdateProfileRequest = z
  .object({
    name: text({ min: 2, max: 120 }, { trim: true }),
  })
  .meta({ id: 'UpdateProfileRequest' });

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
