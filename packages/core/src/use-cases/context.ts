import { PasskeysUnavailable } from '../errors.ts';
import { DEFAULT_ACTIVITY_RETENTION_DAYS } from '../activity.ts';
import { canonicalIp, clientKey, DEFAULT_IPV6_PREFIX, UNKNOWN_CLIENT } from '../client-ip.ts';
import { createDeviceProofs, type DeviceProofs } from '../device-proofs.ts';
import { createAccountManager, type AccountManager, type ManagedStore } from '../account-manager.ts';
import { INBOX_LIMIT, inboxBudget, reservedForPlainSpelling, slotBudget, type InboxBudget } from '../inbox.ts';
import type { RateLimitRule } from '../ports.ts';
import type { SecretBox } from '../secrets.ts';
import { DEFAULT_PROVIDER_TIMEOUT_MS, identityProvider, type IdentityProvider, type IdentityProviderOptions } from '../identity-providers.ts';
import type { FactorKind, Ports } from '../store.ts';
import { ACCOUNT_LOGIN_LIMIT, countRequest, EMAIL_LINK_ACCOUNT_LIMIT, NEW_DEVICE_NOTICE_LIMIT, PROFILE_SESSION_LIMIT, RATE_LIMITS, RESET_ADDRESS_LIMIT, RESET_ADDRESS_POLICY, RESET_OPERATOR_POLICY, type LimitedOperation, type Tally } from '../rate-limits.ts';
import { isSecurityEvent, SECURITY_EVENTS, securityNotices, type SecurityNoticeOptions, type SecurityNotices } from './notices.ts';
import type { RequestMeta } from './request.ts';

/** How long a second factor verified for a session lets it make the owner's changes: 10 minutes. */
export const STEP_UP_WINDOW_MS = 10 * 60_000;

/** The service's name where nothing else is configured: health answers, documents, logs. */
export const DEFAULT_SERVICE_NAME = 'sl-accounts';

/** Live sessions one user may hold by default; a login beyond it ends the oldest. */
export const DEFAULT_MAX_SESSIONS_PER_USER = 50;

/** The relying party: where passkeys are used (`passkeyOrigin`), as the ceremonies check it. */
export interface RelyingParty {
  /** The origin pages run on, e.g. `https://accounts.example.com`. */
  readonly origin: string;
  /** Its hostname: what a passkey is bound to. WebAuthn refuses IP addresses. */
  readonly id: string;
  /** Shown by the authenticator beside the account: the service's name. */
  readonly name: string;
}

/** `createAccounts`'s options: limits, service name, reset link, session cap. */
export interface AccountsOptions {
  /** Service name reported by the health check; default `DEFAULT_SERVICE_NAME`. */
  readonly serviceName?: string;
  /** Overrides the spec's rate limits (tests, embedding hosts with their own policy). */
  readonly rateLimits?: Partial<Record<LimitedOperation, RateLimitRule>>;
  /** Failed logins per account and window; default ACCOUNT_LOGIN_LIMIT; `null` turns the limit off. */
  readonly accountLoginLimit?: RateLimitRule | null;
  /** How many leading bits of an IPv6 address identify one client for the limits (1 to 128); default 56. */
  readonly ipv6Prefix?: number;
  /** Reset links per inbox (registered or not) in any span of `windowMs`; default RESET_ADDRESS_LIMIT. */
  readonly resetAddressLimit?: RateLimitRule;
  /**
   * Mails per inbox in any span of `windowMs` that anyone can cause besides reset links (verification and
   * change-of-address links, notices to unverified addresses); default INBOX_LIMIT.
   */
  readonly inboxLimit?: RateLimitRule;
  /** Changes of name per session and window; default PROFILE_SESSION_LIMIT. */
  readonly profileLimit?: RateLimitRule;
  /**
   * The page a reset mail links to, absolute; the link adds `?token=<token>`. Configured, never
   * taken from a request, so no client can put another site's link into a mail. A function is asked
   * at each mail (a server that learns its own address once it listens); a string is checked at
   * creation. Default `http://localhost/reset-password` (the composition root always passes one).
   */
  readonly resetUrl?: string | (() => string);
  /**
   * The page a verification or change-of-address mail links to, absolute; the link adds
   * `?token=<token>`. Configured, never taken from a request, as `resetUrl` (a function alike).
   * Default `http://localhost/verify-email` (the composition root always passes one).
   */
  readonly verifyUrl?: string | (() => string);
  /** Links mailed per account and window (verification, change of address); default EMAIL_LINK_ACCOUNT_LIMIT. */
  readonly emailLinkLimit?: RateLimitRule;
  /** Hears failures of work done after the answer (a reset request's store write). Default: none. */
  readonly onBackgroundError?: (error: unknown) => void;
  /** The operator's address: each contact message is mailed there too. Unset: messages are only stored. */
  readonly contactTo?: string;
  /** Sessions one user may hold; a signup or login beyond it ends the oldest. Default DEFAULT_MAX_SESSIONS_PER_USER. */
  readonly maxSessionsPerUser?: number;
  /**
   * Which security notices are mailed to an account's owner (see SECURITY_EVENTS): every one by
   * default; `{ 'new-device-sign-in': false }` turns one off, `false` turns them all off.
   */
  readonly securityNotices?: SecurityNoticeOptions;
  /** New-device notices mailed per account and window; default NEW_DEVICE_NOTICE_LIMIT; `null`: one per such login. */
  readonly newDeviceNoticeLimit?: RateLimitRule | null;
  /**
   * The origin the service's pages run on, where passkeys are registered and used (the server's
   * `PUBLIC_URL`): its hostname is the WebAuthn relying party ID, so it must be a name, not an IP
   * address. Configured, never taken from a request; a function is asked at each ceremony, a string
   * checked at creation. Default `http://localhost`; `null`: none, and every passkey ceremony
   * answers 503 `passkeys_unavailable`.
   */
  readonly passkeyOrigin?: string | (() => string) | null;
  /**
   * Seals the secrets of second factors at rest (see secrets.ts: `secretBox(SECRETS_KEY)`). Unset:
   * TOTP cannot be enrolled (503 `two_factor_unavailable`), and an account that has it on cannot
   * pass its second step with a code (recovery codes still work). The server passes the
   * development box outside production when no key is configured.
   */
  readonly secrets?: SecretBox | null;
  /** The issuer an authenticator app shows beside the account (the `otpauth://` URI's); default the service name. */
  readonly totpIssuer?: string;
  /** How long a second factor verified for a session lets it make the owner's changes (a step-up); default STEP_UP_WINDOW_MS. */
  readonly stepUpWindowMs?: number;
  /**
   * Further kinds of second factor (passkeys): each says whether an account has it on. TOTP and
   * recovery codes are built in; an account with any factor on logs in through a challenge.
   */
  readonly factorSources?: readonly FactorSource[];
  /**
   * Identity providers people may sign in through (OpenID Connect, GitHub): their options (built
   * here with `identityProvider`) or providers built already. Ids must be distinct. Default: none.
   */
  readonly identityProviders?: readonly (IdentityProviderOptions | IdentityProvider)[];
  /** How long one request to an identity provider may take; default DEFAULT_PROVIDER_TIMEOUT_MS. */
  readonly providerTimeoutMs?: number;
  /** Days the activity log keeps an event (the sweep deletes older ones); default DEFAULT_ACTIVITY_RETENTION_DAYS (90). */
  readonly activityRetentionDays?: number;
}

/** A kind of second factor an account may have on (see `AccountsOptions.factorSources`). */
export interface FactorSource {
  readonly kind: FactorKind;
  /** Whether the account has this factor on. */
  isOn(userId: number): Promise<boolean>;
}

/** What every group of use cases is built on: the ports, and the options with their defaults filled in. */
export interface UseCaseContext {
  readonly ports: Ports & { readonly store: ManagedStore };
  /** Every write of an account's data, as one unit of work each, over the store. */
  readonly manager: AccountManager;
  readonly devices: DeviceProofs;
  readonly serviceName: string;
  readonly rules: Readonly<Record<LimitedOperation, RateLimitRule>>;
  /** The per-account failed-login limit; `null` when it is off. */
  readonly accountRule: RateLimitRule | null;
  /**
   * A signed-in session's own limit on its password checks: the account's rule, or its default when
   * that is off (a stolen session must never guess without bound).
   */
  readonly sessionPasswordRule: RateLimitRule;
  readonly ipv6Prefix: number;
  /** Reset links to one inbox (RESET_ADDRESS_LIMIT's slots, see inbox.ts). */
  readonly resetLinks: InboxBudget;
  /** The operator's reset links, on slots strangers' requests do not take (RESET_OPERATOR_POLICY). */
  readonly operatorResetLinks: InboxBudget;
  /** What strangers may make the service mail to one inbox (see inbox.ts). */
  readonly inbox: InboxBudget;
  readonly profileRule: RateLimitRule;
  /** The reset page, as configured now (a fresh URL each call, for the caller to add its token to). */
  readonly resetUrl: () => URL;
  /** The verification page, as `resetUrl`. */
  readonly verifyUrl: () => URL;
  readonly emailLinkRule: RateLimitRule;
  /** New-device notices per account and window; `null`: no bound. */
  readonly newDeviceNoticeRule: RateLimitRule | null;
  readonly onBackgroundError: (error: unknown) => void;
  readonly contactTo: string | undefined;
  readonly maxSessions: number;
  /** The security notices, as configured; each use case hands its notice to the manager with its change. */
  readonly notices: SecurityNotices;
  /** The WebAuthn relying party as configured now (`passkeyOrigin`). */
  relyingParty(): RelyingParty;
  /** Seals second factors' secrets; `null` when no key is configured. */
  readonly secrets: SecretBox | null;
  readonly totpIssuer: string;
  readonly stepUpWindowMs: number;
  /** Every kind of second factor an account may have on: TOTP, recovery codes, then `AccountsOptions.factorSources`. */
  readonly factorSources: readonly FactorSource[];
  /** The identity providers, by id, in configuration order. */
  readonly identityProviders: ReadonlyMap<string, IdentityProvider>;
  /** How long the activity log keeps an event, in milliseconds. */
  readonly activityRetentionMs: number;
  /** Counts the request against the operation's per-client limit; returns the canonical client address. */
  limit(operation: LimitedOperation, meta: RequestMeta, tally: Tally): Promise<string>;
}

/** An http(s) URL option as a function of now: a string is checked once, here; a function at each call. */
function pageUrl(name: string, option: string | (() => string)): () => URL {
  const checked = (href: string) => {
    const url = URL.parse(href);
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw new RangeError(`${name} must be an http or https URL`);
    return url;
  };
  if (typeof option === 'function') return () => checked(option());
  const href = checked(option).href;
  return () => new URL(href);
}

/** Checks the options and fills in their defaults; throws RangeError for one out of bounds. */
export function createContext(ports: Ports & { readonly store: ManagedStore }, options: AccountsOptions): UseCaseContext {
  const { clock, tokens } = ports;
  const { rateLimiter } = ports.store;
  const rules = { ...RATE_LIMITS, ...options.rateLimits };
  const ipv6Prefix = options.ipv6Prefix ?? DEFAULT_IPV6_PREFIX;
  const resetUrl = pageUrl('resetUrl', options.resetUrl ?? 'http://localhost/reset-password');
  const verifyUrl = pageUrl('verifyUrl', options.verifyUrl ?? 'http://localhost/verify-email');
  if (!Number.isInteger(ipv6Prefix) || ipv6Prefix < 1 || ipv6Prefix > 128) throw new RangeError('ipv6Prefix must be an integer from 1 to 128');
  const maxSessions = options.maxSessionsPerUser ?? DEFAULT_MAX_SESSIONS_PER_USER;
  if (!Number.isInteger(maxSessions) || maxSessions < 1) throw new RangeError('maxSessionsPerUser must be a positive integer');

  for (const event of Object.keys(options.securityNotices || {})) {
    if (!isSecurityEvent(event)) throw new RangeError(`securityNotices: unknown event ${event} (known: ${SECURITY_EVENTS.join(', ')})`);
  }

  const passkeyOrigin = options.passkeyOrigin === null ? null : pageUrl('passkeyOrigin', options.passkeyOrigin ?? 'http://localhost');
  passkeyOrigin?.();
  const stepUpWindowMs = options.stepUpWindowMs ?? STEP_UP_WINDOW_MS;
  if (!Number.isInteger(stepUpWindowMs) || stepUpWindowMs < 1) throw new RangeError('stepUpWindowMs must be a positive integer');

  // A configured rule bounds guesses at a password as the default does: its windows are never evicted.
  const accountRule = options.accountLoginLimit === undefined ? ACCOUNT_LOGIN_LIMIT : options.accountLoginLimit && { ...options.accountLoginLimit, guesses: true };

  const retentionDays = options.activityRetentionDays ?? DEFAULT_ACTIVITY_RETENTION_DAYS;
  if (!Number.isInteger(retentionDays) || retentionDays < 1) throw new RangeError('activityRetentionDays must be a positive integer');

  const serviceName = options.serviceName ?? DEFAULT_SERVICE_NAME;
  const resetRule = options.resetAddressLimit ?? RESET_ADDRESS_LIMIT;
  const identityProviders = new Map<string, IdentityProvider>();
  for (const option of options.identityProviders ?? []) {
    const provider = 'finish' in option ? option : identityProvider(option, options.providerTimeoutMs ?? DEFAULT_PROVIDER_TIMEOUT_MS);
    if (identityProviders.has(provider.id)) throw new RangeError(`identityProviders: the id ${provider.id} is configured twice`);
    identityProviders.set(provider.id, provider);
  }
  return {
    identityProviders,
    activityRetentionMs: retentionDays * 24 * 60 * 60 * 1000,
    ports,
    manager: createAccountManager(ports.store),
    devices: createDeviceProofs(ports.store.deviceKeys, tokens, clock),
    serviceName,
    rules,
    accountRule,
    sessionPasswordRule: accountRule ?? ACCOUNT_LOGIN_LIMIT,
    ipv6Prefix,
    resetLinks: slotBudget(rateLimiter, clock, RESET_ADDRESS_POLICY, resetRule, reservedForPlainSpelling(resetRule.limit)),
    operatorResetLinks: slotBudget(rateLimiter, clock, RESET_OPERATOR_POLICY, resetRule),
    inbox: inboxBudget(rateLimiter, clock, options.inboxLimit ?? INBOX_LIMIT),
    profileRule: options.profileLimit ?? PROFILE_SESSION_LIMIT,
    resetUrl,
    verifyUrl,
    emailLinkRule: options.emailLinkLimit ?? EMAIL_LINK_ACCOUNT_LIMIT,
    newDeviceNoticeRule: options.newDeviceNoticeLimit === undefined ? NEW_DEVICE_NOTICE_LIMIT : options.newDeviceNoticeLimit,
    onBackgroundError: options.onBackgroundError ?? (() => {}),
    contactTo: options.contactTo,
    maxSessions,
    notices: securityNotices({ serviceName, resetUrl, now: () => clock.now(), enabled: options.securityNotices }),
    relyingParty() {
      if (!passkeyOrigin) throw new PasskeysUnavailable();
      const url = passkeyOrigin();
      return { origin: url.origin, id: url.hostname, name: serviceName };
    },
    secrets: options.secrets ?? null,
    totpIssuer: options.totpIssuer ?? serviceName,
    stepUpWindowMs,
    factorSources: [
      { kind: 'totp', isOn: async (userId) => (await ports.store.totp.find(userId))?.enabled === true },
      { kind: 'recovery', isOn: async (userId) => (await ports.store.recoveryCodes.count(userId)) > 0 },
      // A passkey is a second factor too (docs/decisions/0045-passkeys.md): on while the account has one.
      { kind: 'passkey', isOn: async (userId) => (await ports.store.passkeys.listByUser(userId)).length > 0 },
      ...(options.factorSources ?? []),
    ],
    async limit(operation, meta, tally) {
      const address = canonicalIp(meta.clientIp) ?? UNKNOWN_CLIENT;
      await countRequest(rateLimiter, operation, `${operation}:${clientKey(address, ipv6Prefix)}`, rules[operation], clock.now(), tally);
      return address;
    },
  };
}
