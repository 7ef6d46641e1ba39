/**
 * Response bodies as zod schemas, so the OpenAPI document is generated from code on both sides.
 * Field names and shapes follow the spec's "Response bodies" table.
 */
import { z } from 'zod';
import { PasskeyCreationOptions, PasskeyRequestOptions } from './webauthn-schemas.ts';
import { STATUS_BY_CODE, TRANSPORT_ERROR_STATUS } from '@sl-accounts/service/http';
import { ACTIVITY_TYPES } from '@sl-accounts/service/core';

/** Every `code` the service answers, the use cases' and the transport's, for the schema's description. */
const ERROR_CODES = [...Object.keys(STATUS_BY_CODE), ...Object.keys(TRANSPORT_ERROR_STATUS)];

export const User = z.object({
  id: z.int().positive(),
  name: z.string(),
  email: z.email(),
  emailVerified: z.boolean().meta({ description: 'Whether the owner proved they read mail at `email` (a verification link, a change of address, a completed password reset).' }),
});

export const UserResponse = z.object({ ok: z.literal(true), user: User });

export const Ok = z.object({ ok: z.literal(true) });

export const ErrorResponse = z.object({
  ok: z.literal(false),
  error: z.string().meta({ description: 'A human-readable message; its text is not part of the contract.' }),
  code: z
    .string()
    .regex(/^[a-z][a-z0-9_]*$/)
    .optional()
    .meta({
      description: `What went wrong, for programs: a stable snake_case name (the service always sends it; a client should expect codes added later). Branch on it, not on \`error\`. One of: ${ERROR_CODES.map((c) => `\`${c}\``).join(', ')}.`,
      examples: ['invalid_credentials'],
    }),
  issues: z
    .array(
      z.object({
        path: z.string().meta({ description: 'Dotted field path; empty for the body itself.' }),
        message: z.string(),
      }),
    )
    .optional()
    .meta({ description: 'On 400 only: every problem found with the request body.' }),
});

/** Both answers of the health check, 200 and 503, carry every field (the core's `health()` always fills them). */
export const Health = z.object({
  ok: z.boolean(),
  status: z.enum(['ok', 'unavailable']),
  service: z.string().meta({ description: 'The service name.' }),
  time: z.iso.datetime().meta({ description: 'The server time of the check.' }),
});

export const Session = z.object({
  id: z.string().meta({ description: 'Opaque and random: neither the session token nor anything derived from it.' }),
  createdAt: z.iso.datetime(),
  expiresAt: z.iso.datetime(),
  current: z.boolean().meta({ description: 'Whether this is the session of the cookie sent along.' }),
});

export const SessionsResponse = z.object({ ok: z.literal(true), sessions: z.array(Session) });

/** A security event of the activity log (issue 43). */
export const ActivityEvent = z.object({
  id: z.string().meta({ description: 'The event’s id; `?cursor=` with it pages past it.' }),
  type: z.string().meta({ description: `What happened: ${ACTIVITY_TYPES.map((type) => `\`${type}\``).join(', ')}.` }),
  at: z.iso.datetime(),
  count: z.number().int().min(1).meta({ description: '1, or how many failed sign-ins the hour’s summary counts.' }),
  clientIp: z.string().nullable(),
  userAgent: z.string().nullable(),
  actor: z.string().nullable().meta({ description: '`null`: the owner (or a client on the account); `operator`: the site’s operator.' }),
  details: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).meta({ description: 'The sign-in’s `method` and `newDevice`, a factor’s `kind`, an operator’s `reason`.' }),
});

export const ActivityResponse = z.object({
  ok: z.literal(true),
  events: z.array(ActivityEvent),
  nextCursor: z.string().nullable().meta({ description: 'Send as `?cursor=` for the older events; `null` at the end.' }),
});

const ExportSession = z.object({ id: z.string(), createdAt: z.iso.datetime(), expiresAt: z.iso.datetime() });
export const AccountExportResponse = z.object({
  ok: z.literal(true),
  export: z.object({
    exportedAt: z.iso.datetime(),
    profile: z.object({ id: z.number().int(), name: z.string(), email: z.string(), emailVerified: z.boolean(), locked: z.boolean() }),
    sessions: z.array(ExportSession),
    secondFactors: z.object({ totp: z.object({ enabled: z.boolean(), createdAt: z.iso.datetime() }).nullable(), recoveryCodesLeft: z.number().int().min(0) }),
    passkeys: z.array(z.object({ id: z.string(), name: z.string(), createdAt: z.iso.datetime(), lastUsedAt: z.iso.datetime().nullable(), transports: z.array(z.string()) })),
    pendingLinks: z.object({
      emailLink: z.object({ purpose: z.enum(['verify', 'change']), email: z.string(), createdAt: z.iso.datetime(), expiresAt: z.iso.datetime() }).nullable(),
      passwordReset: z.object({ createdAt: z.iso.datetime(), expiresAt: z.iso.datetime() }).nullable(),
    }),
    identities: z.array(z.object({ provider: z.string(), subject: z.string(), email: z.string().nullable(), linkedAt: z.iso.datetime() })),
    activity: z.array(ActivityEvent),
    contactMessages: z.array(z.object({ name: z.string(), email: z.string(), message: z.string(), clientIp: z.string(), userAgent: z.string().nullable(), receivedAt: z.iso.datetime() })),
  }),
});

export const Passkey = z.object({
  id: z.string().meta({ description: 'The credential ID the authenticator chose (base64url): public; the routes take it.' }),
  name: z.string().meta({ description: 'The owner’s name for it.' }),
  createdAt: z.iso.datetime(),
  lastUsedAt: z.iso.datetime().nullable().meta({ description: 'When it last signed in; `null` before its first use.' }),
});

export const PasskeysResponse = z.object({ ok: z.literal(true), passkeys: z.array(Passkey) });

export const PasskeyResponse = z.object({
  ok: z.literal(true),
  passkey: Passkey,
  recoveryCodes: z.array(z.string()).optional().meta({ description: 'When this passkey is the account’s first second factor: its recovery codes, shown this once (each finishes a login once instead of the passkey).' }),
});

/** Options for `navigator.credentials.get()`: a sign-in, a login's second step, a step-up. */
export const PasskeyOptionsResponse = z.object({ ok: z.literal(true), options: PasskeyRequestOptions });

/** Options for `navigator.credentials.create()`: a passkey's registration. */
export const PasskeyRegistrationOptionsResponse = z.object({ ok: z.literal(true), options: PasskeyCreationOptions });

/** `POST /api/login`'s 202 for an account with a second factor on (docs/decisions/0043-login-challenge-and-statuses.md). */
export const SecondFactorChallenge = z.object({
  ok: z.literal(true),
  secondFactor: z.object({
    methods: z.array(z.enum(['totp', 'recovery', 'passkey'])).meta({ description: 'What finishes the login: `totp` (a code at `POST /api/login/second-factor`), `recovery` (a recovery code there), `passkey`.' }),
    expiresAt: z.iso.datetime().meta({ description: 'When the challenge (the `sl_login` cookie) expires.' }),
  }),
});

/** A login's second step: a login's answer, and how many recovery codes are left when one was used. */
export const SecondFactorLoginResponse = z.object({
  ok: z.literal(true),
  user: User,
  recoveryCodesLeft: z.int().min(0).optional().meta({ description: 'When a recovery code was used: how many are left.' }),
});

/** The start of TOTP enrolment. */
export const TotpEnrolment = z.object({
  ok: z.literal(true),
  otpauthUri: z.string().meta({ description: 'The `otpauth://totp/…` URI (SHA1, 6 digits, 30 s) an authenticator app reads, usually from a QR code of it.' }),
  secret: z.string().meta({ description: 'The shared secret, base32; shown this once.' }),
});

/** Recovery codes, shown once. */
export const RecoveryCodes = z.object({
  ok: z.literal(true),
  recoveryCodes: z.array(z.string()).meta({ description: 'Single-use codes that stand in for the authenticator app’s code; shown this once.' }),
});

/** An identity provider people may sign in through. */
export const SignInProvider = z.object({
  id: z.string().meta({ description: 'The provider’s id: the path segment of `/api/sign-in/{provider}`.' }),
  name: z.string().meta({ description: 'Its name, to show on a button.' }),
});

export const SignInProvidersResponse = z.object({ ok: z.literal(true), providers: z.array(SignInProvider) });

export const AuthorizationUrlResponse = z.object({
  ok: z.literal(true),
  url: z.url().meta({ description: 'The provider’s authorization URL: send the browser there (a top-level navigation).' }),
});

export const Identity = z.object({
  provider: z.string().meta({ description: 'The provider’s id.' }),
  subject: z.string().meta({ description: 'The provider’s identifier of the person.' }),
  email: z.string().nullable().meta({ description: 'The address the provider gave when it was linked, if any.' }),
  linkedAt: z.iso.datetime(),
});

export const IdentitiesResponse = z.object({ ok: z.literal(true), identities: z.array(Identity) });
