/**
 * Signing in through an identity provider, and linking one to an account
 * (docs/decisions/0055-identity-provider-client.md, 0056-identity-linking.md). A first step of the
 * login flow (login-flow.ts): the provider checks the person, `nextStep` ends the sign-in or starts
 * the second factor's challenge as a password login does.
 *
 * The start keeps a single-use state in the store (`oneTimeTokens`, purpose `sign-in-state`) under
 * the digest of the `sl_oauth` cookie's token, the provider and the `state` together: the PKCE
 * verifier, `state`, `nonce`, provider, redirect URI and where to go back. The callback takes it
 * (once) by the same three, so a callback without the cookie, with another browser's, with a `state`
 * not its own or used before, is refused before the provider is asked anything, and takes nothing:
 * a made-up callback cannot cancel the sign-in in progress.
 */
import { timingSafeEqual } from 'node:crypto';
import { freshChecks, type IdentityProvider, type ProviderIdentity } from '../identity-providers.ts';
import { AccountLocked, LastSignInMethod, NotFound, ProviderUnavailable, RateLimited, SignInRefused, Unauthenticated, UnknownProvider, type SignInFailure } from '../errors.ts';
import { countRequest, PROVIDER_SIGN_IN_TOTAL_LIMIT, PROVIDER_SIGN_IN_TOTAL_POLICY, withQuota, type Quota, type Tally } from '../rate-limits.ts';
import { IdentityLinkRequest, parseRequest, ProviderSignInRequest, SignupRequest, UnlinkIdentityRequest } from '../schemas.ts';
import { FIRST_CREDENTIAL_GENERATION, NO_PASSWORD } from '../store.ts';
import { digestToken } from '../system.ts';
import { accountNotice } from './account-notices.ts';
import { activityEntry } from './activity-entries.ts';
import type { UseCaseContext } from './context.ts';
import { verificationLink } from './email.ts';
import { endSignIn, nextStep, type LoginStep } from './login-flow.ts';
import { readBody, type RequestBody, type RequestMeta } from './request.ts';
import { lostRace, signedIn } from './sessions.ts';
import { proveOwner } from './two-factor.ts';

/** How long a started sign-in waits for its callback: 10 minutes (the `sl_oauth` cookie's life). */
export const SIGN_IN_STATE_TTL_MS = 10 * 60_000;

/** A provider as `GET /api/sign-in/providers` lists it. */
export interface ListedProvider {
  readonly id: string;
  readonly name: string;
}

/** A linked identity as its owner sees it. */
export interface ListedIdentity {
  readonly provider: string;
  readonly subject: string;
  readonly email: string | null;
  readonly linkedAt: string;
}

/** A started sign-in: the provider's authorization URL, and the token for the `sl_oauth` cookie. */
export interface StartedProviderSignIn {
  readonly url: string;
  /** The raw token: give it to the client (the `sl_oauth` cookie), never store or log it. */
  readonly stateToken: string;
  readonly maxAgeSeconds: number;
}

/** Where a sign-in through a provider asks the provider to send the browser back, besides the request. */
export interface ProviderStartMeta extends RequestMeta {
  /** The callback's absolute URL (`<origin><base>/api/sign-in/<id>/callback`): the redirect URI. */
  readonly redirectUri: string;
  /** Where to go back when no `returnTo` is given: the mount's root. */
  readonly defaultReturnTo: string;
}

/** The callback's request: the query the provider sent, and the `sl_oauth` cookie. */
export interface ProviderCallbackMeta extends RequestMeta {
  /** The `sl_oauth` cookie's token, if the client sent one. */
  readonly stateToken: string | null;
  /** The callback's query string as the provider sent it (with its leading `?`, or empty). */
  readonly query: string;
  readonly defaultReturnTo: string;
}

/** How a callback ended: always a place to send the browser, and what happened. */
export type ProviderCallbackEnd =
  | { readonly returnTo: string; readonly step: LoginStep }
  | { readonly returnTo: string; readonly linked: string }
  | { readonly returnTo: string; readonly failure: SignInFailure | 'provider_unavailable' | 'rate_limited' | 'account_locked' };

export interface SignInProviderUseCases {
  /** The configured providers, in configuration order. */
  signInProviders(): readonly ListedProvider[];
  /**
   * Starts a sign-in through provider `id`: counts it (per client and in all), keeps its state, and
   * answers the provider's authorization URL. Throws UnknownProvider, ValidationError (`returnTo`),
   * RateLimited or ProviderUnavailable (its discovery failed).
   */
  startProviderSignIn(id: string, body: RequestBody, meta: ProviderStartMeta): Promise<StartedProviderSignIn & Quota>;
  /**
   * The provider's callback: takes the state (once), has the provider's answer checked, and signs
   * in (`nextStep`: a session, or the second factor's challenge), makes the account, or links the
   * identity, as the state says. Never throws for what the person or the provider did: a failure is
   * `failure` with its code, and nothing was started or linked. Throws UnknownProvider.
   */
  finishProviderSignIn(id: string, meta: ProviderCallbackMeta): Promise<ProviderCallbackEnd>;
  /** The signed-in account's identities. Throws Unauthenticated. */
  listIdentities(meta: RequestMeta): Promise<readonly ListedIdentity[]>;
  /**
   * Starts linking provider `id` to the signed-in account, with proof in the body (the password, and
   * with a factor on a current code or a recovery code: `proveOwner`; an account without a password
   * sets one through the reset mail first). Throws Unauthenticated, UnknownProvider, ValidationError, WrongPassword,
   * SecondFactorRequired, RateLimited or ProviderUnavailable.
   */
  startIdentityLink(id: string, body: RequestBody, meta: ProviderStartMeta): Promise<StartedProviderSignIn & Quota>;
  /**
   * Unlinks the account's identity at provider `id`, after the proof in `body` (the password, and
   * with a factor on a current code or a recovery code: `proveOwner`). Throws Unauthenticated,
   * ValidationError, WrongPassword, SecondFactorRequired, WrongCode, RateLimited, NotFound (none
   * linked), LastSignInMethod (the account would have no way in left) or AccountChanged.
   */
  unlinkIdentity(id: string, body: RequestBody, meta: RequestMeta): Promise<Quota>;
}

/**
 * The key a sign-in's state is kept under: the digest of the `sl_oauth` cookie's token, the provider
 * and the `state` sent to it. Only the callback of that browser, that provider and that `state` finds it.
 */
const stateDigest = (stateToken: string, providerId: string, state: string) => digestToken(`${stateToken}\n${providerId}\n${state}`);

/** What the start keeps for the callback, as the state's `data` (opaque to the store). */
interface KeptState {
  readonly provider: string;
  readonly state: string;
  readonly codeVerifier: string;
  readonly nonce?: string;
  readonly redirectUri: string;
  readonly returnTo: string;
  /** A link: the account, its generation when the proof was checked, and the session that asked. */
  readonly link?: { readonly userId: number; readonly generation: number; readonly session: string };
}

/** Whether two strings are equal, in time that does not depend on where they differ. */
function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** A name from the provider's claims, as signup's rules take it, or one made from the address. */
function accountName(identity: ProviderIdentity, email: string): string {
  for (const candidate of [identity.name, email.split('@')[0], 'Member']) {
    const parsed = SignupRequest.shape.name.safeParse(candidate?.slice(0, 120));
    if (parsed.success) return parsed.data;
  }
  return 'Member';
}

/** The provider's address, normalised as signup's, or `null` when it gave none (or one no account could hold). */
function accountEmail(identity: ProviderIdentity): string | null {
  const parsed = SignupRequest.shape.email.safeParse(identity.email ?? '');
  return parsed.success ? parsed.data : null;
}

export function signInProviderUseCases(context: UseCaseContext): SignInProviderUseCases {
  const { store, clock } = context.ports;
  const providers = context.identityProviders;

  const providerOf = (id: string): IdentityProvider => {
    const provider = providers.get(id);
    if (!provider) throw new UnknownProvider();
    return provider;
  };

  /** Counts a start, keeps its state and answers the provider's URL. */
  async function start(provider: IdentityProvider, returnTo: string, meta: ProviderStartMeta, tally: Tally, link?: KeptState['link']): Promise<StartedProviderSignIn> {
    // And all clients together: a state names no account the store could bound it by.
    await countRequest(store.rateLimiter, PROVIDER_SIGN_IN_TOTAL_POLICY, PROVIDER_SIGN_IN_TOTAL_POLICY, PROVIDER_SIGN_IN_TOTAL_LIMIT, clock.now(), tally);
    const checks = await freshChecks(provider.kind);
    // The provider first: when it is down, no state is kept.
    const url = await provider.authorizationUrl(meta.redirectUri, checks);
    const stateToken = context.ports.tokens.generate();
    const kept: KeptState = { provider: provider.id, state: checks.state, codeVerifier: checks.codeVerifier, ...(checks.nonce ? { nonce: checks.nonce } : {}), redirectUri: meta.redirectUri, returnTo, ...(link ? { link } : {}) };
    const createdAt = clock.now();
    const stored = await store.oneTimeTokens.put({
      digest: stateDigest(stateToken, provider.id, checks.state),
      purpose: 'sign-in-state',
      userId: link?.userId ?? null,
      credentialGeneration: link?.generation ?? null,
      email: null,
      data: JSON.stringify(kept),
      failures: 0,
      createdAt,
      expiresAt: new Date(createdAt.getTime() + SIGN_IN_STATE_TTL_MS),
    });
    // Only a link's state is bound to an account: one deleted since the session was read keeps no state.
    if (!stored) throw new Unauthenticated();
    return { url: url.href, stateToken, maxAgeSeconds: SIGN_IN_STATE_TTL_MS / 1000 };
  }

  /** The state of this callback, taken (once), or `null` when it is not this browser's, this provider's, or this `state`'s. */
  async function takeState(id: string, meta: ProviderCallbackMeta): Promise<KeptState | null> {
    const state = new URLSearchParams(meta.query).get('state');
    if (!meta.stateToken || state === null) return null;
    // Kept under the cookie's token, the provider and the `state` together: a callback that gets any
    // of them wrong (a page that sends this browser to the callback with a made-up `state`) finds
    // nothing and takes nothing, so the sign-in in progress still ends when the provider sends it back.
    const token = await store.oneTimeTokens.take('sign-in-state', stateDigest(meta.stateToken, id, state), clock.now());
    if (!token?.data) return null;
    const kept = JSON.parse(token.data) as KeptState;
    if (kept.provider !== id || !sameText(state, kept.state)) return null;
    return kept;
  }

  /** A first sign-in of an identity nobody holds: an account, unless its address is one's already. */
  async function firstSignIn(provider: IdentityProvider, identity: ProviderIdentity, meta: RequestMeta): Promise<LoginStep> {
    const email = accountEmail(identity);
    if (!email) throw new SignInRefused('email_missing');
    // An account at the address never signs in or links by itself (ADR 0056): its owner links from it.
    if (await store.users.findByEmail(email)) throw new SignInRefused('account_exists');
    const createdAt = clock.now();
    // Verified only when the provider asserts it; else the link goes out as at signup, within the inbox's share.
    const ticket = identity.emailVerified ? null : await context.inbox.take(email);
    const made = await context.manager.signUpWithIdentity(
      { name: accountName(identity, email), email, passwordHash: NO_PASSWORD, createdAt, emailVerified: identity.emailVerified },
      { provider: provider.id, issuer: identity.issuer, subject: identity.subject, email, linkedAt: createdAt },
      ticket ? verificationLink(context, email, FIRST_CREDENTIAL_GENERATION) : undefined,
      activityEntry(context, 'account-created', meta, { method: provider.id }),
    );
    if (made === 'email') {
      await ticket?.refund();
      throw new SignInRefused('account_exists');
    }
    if (made === 'identity') {
      await ticket?.refund();
      // Another first sign-in of the same person won: sign in to the account it made.
      return signInHolder(provider, identity, meta);
    }
    // As signup's: the new account's first generation, its client the device that made it.
    return endSignIn(context, { account: made, generation: FIRST_CREDENTIAL_GENERATION, newDevice: false, method: provider.id }, meta);
  }

  /** The identity is an account's: sign in to it, through its second factor when it has one. */
  async function signInHolder(provider: IdentityProvider, identity: ProviderIdentity, meta: RequestMeta): Promise<LoginStep> {
    const held = await store.identities.find(identity.issuer, identity.subject);
    const account = held && (await store.users.findById(held.userId));
    // Still linked once the account (its generation) is read: an unlink committed before that read is
    // seen here, and one committed after it moved the generation the session is stored under.
    if (!account || (await store.identities.find(identity.issuer, identity.subject))?.userId !== account.id) throw new SignInRefused('identity_invalid');
    return nextStep(context, { account, generation: account.credentialGeneration, method: provider.id, failure: () => new SignInRefused('identity_invalid') }, meta);
  }

  /** Links the checked identity to the account the state names, while its generation is the proof's. */
  async function link(provider: IdentityProvider, identity: ProviderIdentity, kept: KeptState, meta: RequestMeta): Promise<void> {
    const { userId, generation, session } = kept.link!;
    const held = await store.identities.find(identity.issuer, identity.subject);
    if (held) throw new SignInRefused(held.userId === userId ? 'already_linked' : 'identity_taken');
    const account = await store.users.findById(userId);
    if (!account) throw new SignInRefused('sign_in_state_invalid');
    const notice = await accountNotice(context, 'identity-linked', meta, account, { providerName: provider.name });
    const email = accountEmail(identity);
    const done = await context.manager.linkIdentity({ provider: provider.id, issuer: identity.issuer, subject: identity.subject, userId, email, linkedAt: clock.now() }, generation, session, notice, activityEntry(context, 'identity-linked', meta, { provider: provider.id }));
    if (done === 'taken') throw new SignInRefused('identity_taken');
    // The account's credentials moved since the proof (a password change, a reset): link again.
    if (done === null) throw new SignInRefused('sign_in_state_invalid');
  }

  return {
    signInProviders: () => [...providers.values()].map((p) => ({ id: p.id, name: p.name })),

    startProviderSignIn: (id, body, meta) =>
      withQuota(async (tally) => {
        // Counted first, so every answer of a limited operation carries its quota.
        await context.limit('providerSignIn', meta, tally);
        const provider = providerOf(id);
        const input = parseRequest(ProviderSignInRequest, await readBody(body));
        return start(provider, input.returnTo ?? meta.defaultReturnTo, meta, tally);
      }),

    async finishProviderSignIn(id, meta) {
      const provider = providerOf(id);
      const kept = await takeState(id, meta);
      if (!kept) return { returnTo: meta.defaultReturnTo, failure: 'sign_in_state_invalid' };
      const { returnTo } = kept;
      try {
        const callbackUrl = new URL(kept.redirectUri);
        callbackUrl.search = meta.query;
        const identity = await provider.finish(callbackUrl, { state: kept.state, codeVerifier: kept.codeVerifier, ...(kept.nonce ? { nonce: kept.nonce } : {}) });
        if (kept.link) {
          await link(provider, identity, kept, meta);
          return { returnTo, linked: provider.id };
        }
        const held = await store.identities.find(identity.issuer, identity.subject);
        const step = held ? await signInHolder(provider, identity, meta) : await firstSignIn(provider, identity, meta);
        return { returnTo, step };
      } catch (error) {
        if (error instanceof SignInRefused) return { returnTo, failure: error.reason };
        if (error instanceof ProviderUnavailable) return { returnTo, failure: 'provider_unavailable' };
        if (error instanceof RateLimited) return { returnTo, failure: 'rate_limited' };
        // A locked account (issue 43) is refused as every failure here is: a 303 with the code, not a 403 page.
        if (error instanceof AccountLocked) return { returnTo, failure: 'account_locked' };
        throw error;
      }
    },

    async listIdentities(meta) {
      const { user } = await signedIn(context, meta);
      return (await store.identities.listByUser(user.id)).map((i) => ({ provider: i.provider, subject: i.subject, email: i.email, linkedAt: i.linkedAt.toISOString() }));
    },

    startIdentityLink: (id, body, meta) =>
      withQuota(async (tally) => {
        await context.limit('providerSignIn', meta, tally);
        const session = await signedIn(context, meta);
        const provider = providerOf(id);
        const input = parseRequest(IdentityLinkRequest, await readBody(body));
        // Adding a way to sign in: the password, and with a factor on one of its factors, in this request (ADR 0045).
        const record = await proveOwner(context, session, { ...input, password: input.password ?? '' }, meta, tally);
        return start(provider, input.returnTo ?? meta.defaultReturnTo, meta, tally, { userId: record.id, generation: record.credentialGeneration, session: session.digest });
      }),

    unlinkIdentity: (id, body, meta) =>
      withQuota(async (tally) => {
        const session = await signedIn(context, meta);
        const provider = providerOf(id);
        const input = parseRequest(UnlinkIdentityRequest, await readBody(body));
        // Removing a way to sign in: the password, and with a factor on one of its factors, in this request (ADR 0045).
        const record = await proveOwner(context, session, input, meta, tally);
        const notice = await accountNotice(context, 'identity-unlinked', meta, record, { providerName: provider.name });
        const done = await context.manager.unlinkIdentity(record.id, provider.id, record.credentialGeneration, session.digest, notice, activityEntry(context, 'identity-unlinked', meta, { provider: provider.id }));
        if (done === 'missing') throw new NotFound('Identity');
        if (done === 'last') throw new LastSignInMethod();
        // The account's credentials moved meanwhile: nothing was unlinked.
        if (done === null) throw await lostRace(context, session);
        return {};
      }),
  };
}
