/**
 * Identity providers: OpenID Connect (any issuer, by its discovery document) and GitHub's OAuth 2.0,
 * both through `openid-client` (docs/decisions/0055-identity-provider-client.md). Nothing here checks
 * a token or a signature by hand: the library makes the authorization URL (PKCE S256, `state`, and
 * for OIDC a `nonce`), redeems the code, and validates the ID token (signature against the issuer's
 * keys, `iss`, `aud`, `exp`, `iat`, `nonce`; `alg: none` is refused). The use cases
 * (use-cases/sign-in-providers.ts) keep the state and decide what an identity may do.
 */
import * as oidc from 'openid-client';
import { ProviderUnavailable, SignInRefused } from './errors.ts';

/** What kind of protocol a provider speaks. */
export type ProviderKind = 'oidc' | 'github';

/** One configured identity provider (`createService({ identityProviders })`, `AUTH_<ID>_*`). */
export interface IdentityProviderOptions {
  /** Lower-case letters and digits: the path segment (`/api/sign-in/<id>`) and the key of its identities. */
  readonly id: string;
  /** Shown to people (`GET /api/sign-in/providers`); default the id, capitalised. */
  readonly name?: string;
  /** Default `oidc`. */
  readonly kind?: ProviderKind;
  /** An OIDC provider's issuer identifier: its metadata comes from `<issuer>/.well-known/openid-configuration`. */
  readonly issuer?: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** GitHub's endpoints; default github.com's. Tests point them at a local stand-in. */
  readonly github?: { readonly authorizationEndpoint: string; readonly tokenEndpoint: string; readonly apiUrl: string };
  /** Allows `http://` endpoints (a provider on loopback, in tests or on a developer's machine); never in production. */
  readonly allowHttp?: boolean;
}

/** GitHub's OAuth 2.0 endpoints and API, as its documentation gives them. */
export const GITHUB_ENDPOINTS = {
  authorizationEndpoint: 'https://github.com/login/oauth/authorize',
  tokenEndpoint: 'https://github.com/login/oauth/access_token',
  apiUrl: 'https://api.github.com',
} as const;

/** The issuer an identity at GitHub is kept under (GitHub's OAuth 2.0 names none). */
export const GITHUB_ISSUER = 'https://github.com';

/** What a provider said of the person, once its answer passed every check. */
export interface ProviderIdentity {
  readonly issuer: string;
  readonly subject: string;
  /** The address, normalised by the caller; `null` when the provider gave none. */
  readonly email: string | null;
  /** Whether the provider asserts the address is the person's (`email_verified`, GitHub's verified primary). */
  readonly emailVerified: boolean;
  /** A display name, when the provider gave one. */
  readonly name: string | null;
}

/** What the callback checks the provider's answer against: what the start kept. */
export interface CallbackChecks {
  readonly state: string;
  readonly codeVerifier: string;
  /** OIDC only. */
  readonly nonce?: string;
}

/** A provider as the use cases use it. */
export interface IdentityProvider {
  readonly id: string;
  readonly name: string;
  readonly kind: ProviderKind;
  /** The authorization URL for one sign-in. Throws ProviderUnavailable when the discovery fails. */
  authorizationUrl(redirectUri: string, checks: CallbackChecks & { readonly codeChallenge: string }): Promise<URL>;
  /**
   * Redeems the callback's code and answers the identity. `callbackUrl` is the redirect URI with the
   * query the provider sent. Throws SignInRefused (`provider_refused`, `identity_invalid`) or ProviderUnavailable.
   */
  finish(callbackUrl: URL, checks: CallbackChecks): Promise<ProviderIdentity>;
}

/** How long one request to a provider may take before the sign-in fails with `provider_unavailable`. */
export const DEFAULT_PROVIDER_TIMEOUT_MS = 10_000;

/** A provider's id: lower-case letters and digits, as `AUTH_<ID>_*` can name it. */
export const PROVIDER_ID = /^[a-z][a-z0-9]{0,31}$/;

/** Fresh random values for one sign-in: PKCE's verifier and challenge, `state` and `nonce`. */
export async function freshChecks(kind: ProviderKind): Promise<CallbackChecks & { readonly codeChallenge: string }> {
  const codeVerifier = oidc.randomPKCECodeVerifier();
  return {
    codeVerifier,
    codeChallenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    state: oidc.randomState(),
    ...(kind === 'oidc' ? { nonce: oidc.randomNonce() } : {}),
  };
}

/** What an error of the library means for the person: the provider refused, its answer was bad, or it is down. */
function classify(error: unknown): Error {
  if (error instanceof SignInRefused || error instanceof ProviderUnavailable) return error;
  if (error instanceof oidc.AuthorizationResponseError) return new SignInRefused('provider_refused', { cause: error });
  if (error instanceof oidc.ResponseBodyError) return error.status >= 500 ? new ProviderUnavailable({ cause: error }) : new SignInRefused('identity_invalid', { cause: error });
  if (error instanceof oidc.ClientError) {
    // An answer with a status no client expects (a 5xx, a proxy's page) is the provider being down.
    // So is one that never came (the bounded wait ran out), or a request refused on the way.
    if (error.code === 'OAUTH_RESPONSE_IS_NOT_CONFORM' || error.code === 'OAUTH_RESPONSE_IS_NOT_JSON' || error.code === 'OAUTH_TIMEOUT' || error.cause instanceof TypeError) return new ProviderUnavailable({ cause: error });
    return new SignInRefused('identity_invalid', { cause: error });
  }
  // A refused connection, a timeout, a reset: the provider did not answer.
  return new ProviderUnavailable({ cause: error });
}

/** The display name of an id without one: `gitlab` → `Gitlab`. */
const displayName = (id: string) => id.charAt(0).toUpperCase() + id.slice(1);

/** A string claim, or `null`. */
const claim = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value : null);

/** Builds a provider; discovery happens at its first use (and again after a failed one). Throws RangeError for bad options. */
export function identityProvider(options: IdentityProviderOptions, timeoutMs = DEFAULT_PROVIDER_TIMEOUT_MS): IdentityProvider {
  const { id, clientId, clientSecret } = options;
  // `providers` is the list's own path segment (`GET /api/sign-in/providers`).
  if (!PROVIDER_ID.test(id) || id === 'providers') throw new RangeError(`identity provider id ${JSON.stringify(id)} must be lower-case letters and digits (and not "providers")`);
  if (!clientId || !clientSecret) throw new RangeError(`identity provider ${id}: clientId and clientSecret are required`);
  const kind = options.kind ?? 'oidc';
  if (kind === 'oidc' && !URL.canParse(options.issuer ?? '')) throw new RangeError(`identity provider ${id}: issuer must be a URL`);
  const timeoutSeconds = timeoutMs / 1000;
  const execute = options.allowHttp ? [oidc.allowInsecureRequests] : [];
  const github = options.github ?? GITHUB_ENDPOINTS;

  let configuration: Promise<oidc.Configuration> | undefined;
  const configure = (): Promise<oidc.Configuration> => {
    configuration ??= (async () => {
      let config: oidc.Configuration;
      if (kind === 'oidc') {
        // Non-repudiation checks: the ID token's signature is verified against the issuer's keys even
        // though it came straight from the token endpoint (which OIDC lets a client skip over TLS).
        config = await oidc.discovery(new URL(options.issuer!), clientId, clientSecret, undefined, { timeout: timeoutSeconds, execute: [...execute, oidc.enableNonRepudiationChecks] });
      } else {
        // GitHub publishes no metadata: its endpoints are given by hand, as its documentation states them.
        config = new oidc.Configuration({ issuer: GITHUB_ISSUER, authorization_endpoint: github.authorizationEndpoint, token_endpoint: github.tokenEndpoint }, clientId, clientSecret);
        for (const step of execute) step(config);
      }
      config.timeout = timeoutSeconds;
      return config;
    })().catch((error: unknown) => {
      configuration = undefined;
      throw classify(error);
    });
    return configuration;
  };

  /** GitHub's user and its verified primary address, through its API with the access token. */
  async function githubIdentity(config: oidc.Configuration, accessToken: string): Promise<ProviderIdentity> {
    const get = async (path: string) => {
      const response = await oidc.fetchProtectedResource(config, accessToken, new URL(path, github.apiUrl.endsWith('/') ? github.apiUrl : `${github.apiUrl}/`), 'GET', undefined, new Headers({ accept: 'application/vnd.github+json' }));
      if (response.status >= 500) throw new ProviderUnavailable();
      if (!response.ok) throw new SignInRefused('identity_invalid');
      return (await response.json()) as unknown;
    };
    const user = (await get('user')) as { id?: unknown; login?: unknown; name?: unknown };
    if (typeof user?.id !== 'number' && typeof user?.id !== 'string') throw new SignInRefused('identity_invalid');
    const emails = await get('user/emails');
    const primary = Array.isArray(emails) ? (emails as { email?: unknown; primary?: unknown; verified?: unknown }[]).find((e) => e?.primary === true) : undefined;
    const email = claim(primary?.email);
    return { issuer: GITHUB_ISSUER, subject: String(user.id), email, emailVerified: email !== null && primary?.verified === true, name: claim(user.name) ?? claim(user.login) };
  }

  return {
    id,
    name: options.name ?? displayName(id),
    kind,
    async authorizationUrl(redirectUri, checks) {
      const config = await configure();
      const parameters: Record<string, string> = {
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: kind === 'oidc' ? 'openid email profile' : 'read:user user:email',
        state: checks.state,
        code_challenge: checks.codeChallenge,
        code_challenge_method: 'S256',
      };
      if (checks.nonce) parameters.nonce = checks.nonce;
      return oidc.buildAuthorizationUrl(config, parameters);
    },
    async finish(callbackUrl, checks) {
      try {
        const config = await configure();
        const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
          pkceCodeVerifier: checks.codeVerifier,
          expectedState: checks.state,
          ...(kind === 'oidc' ? { expectedNonce: checks.nonce, idTokenExpected: true } : {}),
        });
        // The tokens go no further than this function: none is kept (ADR 0056).
        if (kind === 'github') return await githubIdentity(config, tokens.access_token);
        const idToken = tokens.claims();
        if (!idToken) throw new SignInRefused('identity_invalid');
        // Providers that keep the address out of the ID token (the spec's default for the code flow)
        // give it at the UserInfo endpoint, for the ID token's subject only.
        const hasUserInfo = config.serverMetadata().userinfo_endpoint !== undefined;
        const claims = idToken.email === undefined && hasUserInfo ? { ...(await oidc.fetchUserInfo(config, tokens.access_token, idToken.sub)), iss: idToken.iss, sub: idToken.sub } : idToken;
        const email = claim(claims.email);
        const name = claim(claims.name) ?? claim(claims.preferred_username) ?? claim([claims.given_name, claims.family_name].filter((part) => typeof part === 'string').join(' '));
        return { issuer: claims.iss, subject: claims.sub, email, emailVerified: email !== null && claims.email_verified === true, name };
      } catch (error) {
        throw classify(error);
      }
    },
  };
}
