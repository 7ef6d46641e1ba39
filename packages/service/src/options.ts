/**
 * `createService`'s options, checked at run time (zod), so a JavaScript caller or a value read from
 * the environment learns which option is wrong and why, in one line, before anything starts: a
 * bare host as `publicUrl` (its links would be relative), a negative `trustProxy`, a sweep every
 * millisecond, a missing store. TypeScript callers get most of this at compile time; the bounds and
 * the URL's form only here.
 */
import { z } from 'zod';
import { normaliseBasePath } from '@sl-accounts/service/http';

/** An object with these methods (a port as the service calls it). */
const withMethods = (what: string, ...methods: string[]) =>
  z.custom<object>((value) => typeof value === 'object' && value !== null && methods.every((m) => typeof (value as Record<string, unknown>)[m] === 'function'), {
    message: `must be ${what} (an object with ${methods.map((m) => `${m}()`).join(', ')})`,
  });

const absoluteUrl = z.string().refine((value) => {
  const url = URL.parse(value);
  return url !== null && (url.protocol === 'http:' || url.protocol === 'https:') && url.host !== '';
}, 'must be an absolute http(s) URL, such as https://accounts.example.org');

/** Trusted proxy hops: as TRUST_PROXY's bounds. */
export const MAX_TRUST_PROXY = 32;
/** The sweep's bounds: at least a second (a sweep per millisecond costs CPU for nothing), at most a day. */
export const SWEEP_INTERVAL_MS = { min: 1_000, max: 86_400_000 } as const;

/** A request body's deadline on `fetch`: at most an hour (0: none). */
export const MAX_BODY_TIMEOUT_MS = 3_600_000;

const ServiceOptionsSchema = z.strictObject({
  store: withMethods('a store (createMemoryStore(), createPostgresStore(...), createPGliteStore(...))', 'ping', 'close'),
  hasher: withMethods('a PasswordHasher', 'hash', 'verify').optional(),
  clock: withMethods('a Clock', 'now').optional(),
  tokens: withMethods('a TokenGenerator', 'generate').optional(),
  accounts: z
    .looseObject({ secrets: z.union([z.null(), withMethods('', 'seal', 'open')], 'must be a SecretBox (secretBox(SECRETS_KEY) of @sl-accounts/service/core, an object with seal() and open()) or null').optional() })
    .optional(),
  logger: withMethods('a logger (pino fits)', 'debug', 'info', 'warn', 'error').optional(),
  basePath: z
    .string()
    .superRefine((value, ctx) => {
      try {
        normaliseBasePath(value);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
      }
    })
    .optional(),
  publicUrl: absoluteUrl.optional(),
  linkBase: z.union([absoluteUrl, z.custom<() => string>((value) => typeof value === 'function')], 'must be an absolute http(s) URL or a function answering one').optional(),
  trustProxy: z.int().min(0).max(MAX_TRUST_PROXY).optional(),
  docsPage: z.custom((value) => typeof value === 'function', 'must be a docs page (apiReferencePage of @sl-accounts/docs-page)').optional(),
  mcp: z.boolean().optional(),
  mailer: withMethods('a Mailer (createSmtpMailer(...) of @sl-accounts/service/mail-smtp)', 'send').optional(),
  // Its numbers checked here: a pollMs of 'soon' or -1 was a timer firing every millisecond.
  mail: z.looseObject({ pollMs: z.int().min(1).optional(), leaseMs: z.int().min(1).optional(), droppedLogIntervalMs: z.int().min(1).optional(), messageIdDomain: z.string().min(1).optional() }).optional(),
  sessionCache: z.union([z.literal(false), z.looseObject({})]).optional(),
  sweepIntervalMs: z.int().min(SWEEP_INTERVAL_MS.min).max(SWEEP_INTERVAL_MS.max).optional(),
  observeAccounts: z.custom((value) => typeof value === 'function', 'must be a function').optional(),
  migrate: z.boolean().optional(),
  bodyTimeoutMs: z.int().min(0).max(MAX_BODY_TIMEOUT_MS).optional(),
  identityProviders: z.array(z.looseObject({ id: z.string(), clientId: z.string().min(1), clientSecret: z.string().min(1) }), 'must be a list of identity providers ({ id, issuer, clientId, clientSecret } or { id, kind: "github", clientId, clientSecret })').optional(),
});

/** Every option `createService` takes, by name (docs/embedding.md's table is held to it). */
export const SERVICE_OPTION_NAMES: readonly string[] = Object.keys(ServiceOptionsSchema.shape);

/**
 * Throws a TypeError naming every bad option (`createService: publicUrl: must be …; trustProxy: …`),
 * unknown ones included (a misspelt `mailer` would otherwise silently be the default).
 */
export function checkServiceOptions(options: unknown): void {
  // zod would say ": is required" here, with an empty path: no option to name, so say what to pass.
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new TypeError(`createService needs an options object with at least a store, such as createService({ store: createMemoryStore() }) (of @sl-accounts/store-memory); got ${Array.isArray(options) ? 'an array' : typeof options === 'string' ? JSON.stringify(options) : String(options)}`);
  }
  const result = ServiceOptionsSchema.safeParse(options);
  if (result.success) return;
  const problems = result.error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') return `unknown option${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}`;
    const path = issue.path.join('.');
    const given = issue.path.reduce<unknown>((value, key) => (value as Record<PropertyKey, unknown> | undefined)?.[key], options);
    if (given === undefined) return `${path}: is required`;
    return `${path || 'options'}: ${issue.message}`;
  });
  throw new TypeError(`createService: ${problems.join('; ')}`);
}
