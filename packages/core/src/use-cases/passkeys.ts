/**
 * Passkeys (WebAuthn), with `@simplewebauthn/server` doing every check of what the authenticator
 * signed (CBOR, COSE keys, signatures, the origin, the RP ID, the flags): the signed-in owner
 * registers, lists, renames and removes them, and a discoverable passkey signs in on its own
 * (docs/decisions/0045-passkeys.md).
 *
 * - **Challenges** are the library's (32 random bytes), stored as their SHA-256 digest with what
 *   they are for (`register` for one account, `sign-in` for none) and taken once: a take deletes the
 *   row, so of two uses (concurrent, or on two processes sharing a database) one gets it. A challenge
 *   lives `PASSKEY_CHALLENGE_TTL_MS`; the sweep removes those never answered.
 * - **The relying party** is the configured origin (`passkeyOrigin`, the server's `PUBLIC_URL`): its
 *   hostname is the RP ID. Never a request's Host.
 * - **User verification** is required at every ceremony, and the library refuses an answer without
 *   the UV flag. **The counter** must move forward (or stay 0 on an authenticator that does not count):
 *   the library checks it against the stored one, and the store's compare-and-set decides between
 *   concurrent uses (`PasskeyRepository.recordUse`).
 * - **Adding or removing** a passkey moves the credential generation (every other session ends) and
 *   mails a notice, in one unit of work.
 */
import { generateAuthenticationOptions, generateRegistrationOptions, verifyAuthenticationResponse, verifyRegistrationResponse } from '@simplewebauthn/server';
import type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { decodeClientDataJSON } from '@simplewebauthn/server/helpers';
import { InvalidCredentials, LoginChallengeInvalid, NotFound, Unauthenticated, ValidationError } from '../errors.ts';
import { accountKey, countRequest, PASSKEY_OPTIONS_SESSION_LIMIT, PASSKEY_OPTIONS_SESSION_POLICY, PASSKEY_SIGN_IN_TOTAL_LIMIT, PASSKEY_SIGN_IN_TOTAL_POLICY, withQuota, type Quota, type Tally } from '../rate-limits.ts';
import { finishLogin, hasSecondFactor, recordStepUp, requireStepUp } from './second-factor.ts';
import type { LoginChallengeMeta } from './login.ts';
import { parseRequest, PasskeyRegistrationRequest, PasskeyRenameRequest, PasskeySignInRequest } from '../schemas.ts';
import type { Passkey, PasskeyChallenge, PasskeyChallengePurpose, UserRecord } from '../store.ts';
import { digestToken } from '../system.ts';
import { accountNotice } from './account-notices.ts';
import type { UseCaseContext } from './context.ts';

export type { RelyingParty } from './context.ts';
import { checksDevices, endPresentedSessions, newDeviceNotice, startSignedIn } from './sign-in.ts';
import { readBody, type RequestBody, type RequestMeta, type SessionMeta } from './request.ts';
import { signedIn, type SignedInSession } from './sessions.ts';
import type { SignedIn } from './signup.ts';

/** How long a WebAuthn challenge can be answered: the ceremony's timeout. */
export const PASSKEY_CHALLENGE_TTL_MS = 5 * 60_000;

/** The COSE algorithms a passkey may use: ES256 and RS256 (what every platform authenticator offers). */
export const PASSKEY_ALGORITHMS = [-7, -257];

/** The name a passkey gets when its registration names none. */
export const DEFAULT_PASSKEY_NAME = 'Passkey';

/** A passkey as its owner sees it in the list. */
export interface ListedPasskey {
  /** The credential ID (base64url): public, and the id the routes take. */
  readonly id: string;
  readonly name: string;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
}

export interface PasskeyUseCases {
  /** Options for `navigator.credentials.create()` for the signed-in user; stores their challenge. Throws Unauthenticated or RateLimited. */
  passkeyRegistrationOptions(meta: SessionMeta): Promise<{ readonly options: PublicKeyCredentialCreationOptionsJSON } & Quota>;
  /**
   * Verifies the browser's answer to those options and adds the passkey; every other session of the
   * user ends and a notice is mailed. Throws Unauthenticated or ValidationError (a malformed answer,
   * one to a challenge that is not this account's registration, used or expired, one without user
   * verification, or a passkey stored already).
   */
  registerPasskey(body: RequestBody, meta: RequestMeta): Promise<ListedPasskey>;
  /** The signed-in user's passkeys, oldest first. Throws Unauthenticated. */
  listPasskeys(meta: SessionMeta): Promise<readonly ListedPasskey[]>;
  /** Renames one of the signed-in user's passkeys. Throws Unauthenticated, ValidationError or NotFound. */
  renamePasskey(id: string, body: RequestBody, meta: RequestMeta): Promise<ListedPasskey>;
  /** Removes one of the signed-in user's passkeys; every other session ends and a notice is mailed. Throws Unauthenticated or NotFound. */
  removePasskey(id: string, meta: RequestMeta): Promise<void>;
  /** Options for `navigator.credentials.get()` with a discoverable passkey; stores their challenge. Throws RateLimited. */
  passkeySignInOptions(meta: RequestMeta): Promise<{ readonly options: PublicKeyCredentialRequestOptionsJSON } & Quota>;
  /**
   * Signs in with the passkey that answered a sign-in challenge, as a login does (a fresh session, a
   * device proof, the new-device notice). Throws ValidationError (malformed), InvalidCredentials (an
   * unknown or removed passkey, a used, expired or foreign challenge, a bad signature, no user
   * verification, a counter that did not move forward) or RateLimited.
   */
  signInWithPasskey(body: RequestBody, meta: RequestMeta): Promise<SignedIn & Quota>;
  /**
   * Options for the second step of a login (the `sl_login` challenge) with one of the account's
   * passkeys (`allowCredentials` names them). Throws LoginChallengeInvalid or RateLimited.
   */
  passkeyLoginOptions(meta: LoginChallengeMeta): Promise<{ readonly options: PublicKeyCredentialRequestOptionsJSON } & Quota>;
  /**
   * A login's second step with a passkey of the challenge's account (ADR 0043's `finishLogin`): the
   * session, a device proof, the new-device notice, a step-up. Throws ValidationError,
   * LoginChallengeInvalid, InvalidCode (the passkey's answer was refused) or RateLimited.
   */
  loginWithPasskey(body: RequestBody, meta: LoginChallengeMeta): Promise<SignedIn & Quota>;
  /** Options for a step-up of the signed-in session with one of its account's passkeys. Throws Unauthenticated, NotFound (no passkey) or RateLimited. */
  passkeyStepUpOptions(meta: SessionMeta): Promise<{ readonly options: PublicKeyCredentialRequestOptionsJSON } & Quota>;
  /**
   * Records a step-up of the signed-in session (its owner's changes then go through for a few
   * minutes) when one of the account's passkeys answered a step-up challenge. Throws Unauthenticated,
   * ValidationError or InvalidCredentials.
   */
  stepUpWithPasskey(body: RequestBody, meta: RequestMeta): Promise<void>;
}

/** The user handle a passkey carries for an account: its id's digits (no address, nothing secret). */
const userHandleOf = (userId: number) => new TextEncoder().encode(String(userId));

const listed = (p: Passkey): ListedPasskey => ({ id: p.id, name: p.name, createdAt: p.createdAt.toISOString(), lastUsedAt: p.lastUsedAt?.toISOString() ?? null });

/** The refusal of a registration's answer, whatever was wrong with it (the library's reason stays out of the answer). */
const badRegistration = () => new ValidationError([{ path: 'response', message: 'is not a valid answer to a passkey registration of this account (it may have expired: ask for new options)' }]);

/** The refusal of a sign-in, whatever was wrong: the same for an unknown passkey and a bad signature. */
const badSignIn = () => new InvalidCredentials('The passkey was not accepted');

export function passkeyUseCases(context: UseCaseContext): PasskeyUseCases {
  const { store, clock } = context.ports;

  /** Stores a fresh challenge (by digest) for `purpose`. */
  async function remember(challenge: string, purpose: PasskeyChallengePurpose, userId: number | null): Promise<void> {
    const createdAt = clock.now();
    await store.passkeyChallenges.put({ digest: digestToken(challenge), purpose, userId, createdAt, expiresAt: new Date(createdAt.getTime() + PASSKEY_CHALLENGE_TTL_MS) });
  }

  /**
   * Takes the challenge the browser answered (read from its client data, which the library checks
   * again): once, whatever the answer turns out to be. `null` when it was never issued, was used,
   * expired, or is not `purpose`'s (then it is used up all the same).
   */
  async function take(clientDataJSON: string, purpose: PasskeyChallengePurpose): Promise<{ readonly challenge: string; readonly stored: PasskeyChallenge } | null> {
    let challenge: string;
    try {
      challenge = decodeClientDataJSON(clientDataJSON).challenge;
    } catch {
      return null;
    }
    if (typeof challenge !== 'string' || challenge === '' || challenge.length > 200) return null;
    const stored = await store.passkeyChallenges.take(digestToken(challenge), clock.now());
    return stored && stored.purpose === purpose ? { challenge, stored } : null;
  }

  /**
   * Checks an assertion (a `navigator.credentials.get()` answer) for a challenge of `purpose`: the
   * challenge is used up first, whatever follows; then the passkey (of `userId` when one is
   * expected), its user handle, the signature, the origin, the RP ID, user verification, and the
   * counter's compare-and-set. The passkey and its account's row (read before the signature was
   * checked: a removal committed meanwhile moves the generation, and a session under the one read
   * is not stored); `null` when anything is wrong.
   */
  async function verifyAssertion(response: AuthenticationResponseJSON, purpose: PasskeyChallengePurpose, userId: number | null): Promise<{ readonly passkey: Passkey; readonly record: UserRecord } | null> {
    const rp = context.relyingParty();
    const taken = await take(response.response.clientDataJSON, purpose);
    if (!taken || taken.stored.userId !== userId) return null;
    const passkey = await store.passkeys.findById(response.id);
    if (!passkey || (userId !== null && passkey.userId !== userId)) return null;
    const record = await store.users.findById(passkey.userId);
    if (!record) return null;
    // A discoverable passkey names its account; an authenticator asked with allowCredentials may send
    // none (null or absent), and then the credential ID alone names it.
    const handle = response.response.userHandle as string | null | undefined;
    if (handle != null && handle !== Buffer.from(userHandleOf(record.id)).toString('base64url')) return null;
    let newCounter: number;
    try {
      const verified = await verifyAuthenticationResponse({
        response,
        expectedChallenge: taken.challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        credential: { id: passkey.id, publicKey: new Uint8Array(passkey.publicKey), counter: passkey.counter, transports: [...passkey.transports] },
        requireUserVerification: true,
      });
      if (!verified.verified) return null;
      newCounter = verified.authenticationInfo.newCounter;
    } catch {
      return null;
    }
    // The counter's compare-and-set: a cloned authenticator's replay, or the loser of two
    // concurrent uses with one counter, writes nothing; so does a passkey removed meanwhile.
    if (!(await store.passkeys.recordUse(passkey.id, newCounter, clock.now()))) return null;
    return { passkey, record };
  }

  /** Options for an assertion by one of `userId`'s passkeys, for `purpose`; stores their challenge. */
  async function assertionOptions(userId: number, purpose: PasskeyChallengePurpose): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const rp = context.relyingParty();
    const passkeys = await store.passkeys.listByUser(userId);
    const options = await generateAuthenticationOptions({
      rpID: rp.id,
      userVerification: 'required',
      timeout: PASSKEY_CHALLENGE_TTL_MS,
      allowCredentials: passkeys.map((p) => ({ id: p.id, transports: [...p.transports] })),
    });
    await remember(options.challenge, purpose, userId);
    return options;
  }

  /** Counts a signed-in session's request for options (each stores a challenge). Throws RateLimited. */
  const countOptions = (session: SignedInSession, tally: Tally) =>
    countRequest(store.rateLimiter, PASSKEY_OPTIONS_SESSION_POLICY, accountKey(PASSKEY_OPTIONS_SESSION_POLICY, session.digest), PASSKEY_OPTIONS_SESSION_LIMIT, clock.now(), tally);

  /** The signed-in user's row (its generation is what a change must still find). */
  async function owner(session: SignedInSession): Promise<UserRecord> {
    const record = await store.users.findById(session.user.id);
    if (!record) throw new Unauthenticated();
    return record;
  }

  return {
    passkeyRegistrationOptions: (meta) =>
      withQuota(async (tally) => {
        const session = await signedIn(context, meta);
        await countOptions(session, tally);
        const rp = context.relyingParty();
        const existing = await store.passkeys.listByUser(session.user.id);
        const options = await generateRegistrationOptions({
          rpName: rp.name,
          rpID: rp.id,
          userName: session.user.email,
          userDisplayName: session.user.name,
          userID: userHandleOf(session.user.id),
          timeout: PASSKEY_CHALLENGE_TTL_MS,
          attestationType: 'none',
          excludeCredentials: existing.map((p) => ({ id: p.id, transports: [...p.transports] })),
          // Discoverable (it signs in with no address typed) and verified (PIN, biometrics).
          authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
          supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
        });
        await remember(options.challenge, 'register', session.user.id);
        return { options };
      }),

    async registerPasskey(body, meta) {
      const session = await signedIn(context, meta);
      const input = parseRequest(PasskeyRegistrationRequest, await readBody(body));
      const rp = context.relyingParty();
      // With a second factor on, a stolen session alone adds no passkey (ADR 0044's step-up).
      await requireStepUp(context, session.digest, session.user.id, null);
      const taken = await take(input.response.response.clientDataJSON, 'register');
      // Another account's challenge (or a sign-in's) proves nothing about this one.
      if (!taken || taken.stored.userId !== session.user.id) throw badRegistration();
      const record = await owner(session);
      let info;
      try {
        const verified = await verifyRegistrationResponse({
          response: input.response as unknown as RegistrationResponseJSON,
          expectedChallenge: taken.challenge,
          expectedOrigin: rp.origin,
          expectedRPID: rp.id,
          requireUserVerification: true,
          supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
        });
        if (!verified.verified) throw badRegistration();
        info = verified.registrationInfo;
      } catch {
        throw badRegistration();
      }
      const passkey: Passkey = {
        id: info.credential.id,
        userId: record.id,
        name: input.name ?? DEFAULT_PASSKEY_NAME,
        publicKey: info.credential.publicKey,
        counter: info.credential.counter,
        transports: info.credential.transports ?? [],
        createdAt: clock.now(),
        lastUsedAt: null,
      };
      const notice = await accountNotice(context, 'passkey-added', meta, record, { passkeyName: passkey.name });
      const added = await context.manager.addPasskey(passkey, record.credentialGeneration, session.digest, notice);
      // The account's credentials changed while the answer was checked: its sessions ended with it.
      if (added === null) throw new Unauthenticated();
      if (added === 'taken') throw new ValidationError([{ path: 'response', message: 'is a passkey registered already' }]);
      return listed(passkey);
    },

    async listPasskeys(meta) {
      const session = await signedIn(context, meta);
      return (await store.passkeys.listByUser(session.user.id)).map(listed);
    },

    async renamePasskey(id, body, meta) {
      const session = await signedIn(context, meta);
      const input = parseRequest(PasskeyRenameRequest, await readBody(body));
      if (!(await store.passkeys.rename(session.user.id, id, input.name))) throw new NotFound('Passkey');
      const passkey = await store.passkeys.findById(id);
      if (!passkey || passkey.userId !== session.user.id) throw new NotFound('Passkey');
      return listed(passkey);
    },

    async removePasskey(id, meta) {
      const session = await signedIn(context, meta);
      const record = await owner(session);
      const passkey = await store.passkeys.findById(id);
      if (!passkey || passkey.userId !== record.id) throw new NotFound('Passkey');
      // Turning a factor off needs it (ADR 0044's step-up).
      await requireStepUp(context, session.digest, record.id, null);
      const notice = await accountNotice(context, 'passkey-removed', meta, record, { passkeyName: passkey.name });
      const removed = await context.manager.removePasskey(record.id, id, record.credentialGeneration, session.digest, notice);
      if (removed === 'missing') throw new NotFound('Passkey');
      if (removed === null) throw new Unauthenticated();
    },

    passkeySignInOptions: (meta) =>
      withQuota(async (tally) => {
        await context.limit('passkeySignIn', meta, tally);
        // And all clients together: a sign-in challenge names no account the store could bound it by.
        await countRequest(store.rateLimiter, PASSKEY_SIGN_IN_TOTAL_POLICY, PASSKEY_SIGN_IN_TOTAL_POLICY, PASSKEY_SIGN_IN_TOTAL_LIMIT, clock.now(), tally);
        const rp = context.relyingParty();
        // No allowCredentials: the browser offers the passkeys it holds for the RP (discoverable).
        const options = await generateAuthenticationOptions({ rpID: rp.id, userVerification: 'required', timeout: PASSKEY_CHALLENGE_TTL_MS });
        await remember(options.challenge, 'sign-in', null);
        return { options };
      }),

    signInWithPasskey: (body, meta) =>
      withQuota(async (tally) => {
        await context.limit('passkeySignIn', meta, tally);
        const input = parseRequest(PasskeySignInRequest, await readBody(body));
        const verified = await verifyAssertion(input.response as unknown as AuthenticationResponseJSON, 'sign-in', null);
        if (!verified) throw badSignIn();
        const { record } = verified;
        const device = checksDevices(context) ? await context.devices.verify(meta.deviceProof, record.id) : null;
        await endPresentedSessions(context, meta);
        const signed = await startSignedIn(context, record, record.credentialGeneration, device, meta, badSignIn);
        // A passkey is a factor: the session may make the owner's changes for the step-up's window.
        await recordStepUp(context, digestToken(signed.session.token), 'passkey');
        return signed;
      }),

    passkeyLoginOptions: (meta) =>
      withQuota(async (tally) => {
        await context.limit('passkeySignIn', meta, tally);
        if (!meta.loginChallenge) throw new LoginChallengeInvalid();
        // A look at the challenge: taken and put back as it was (the second step takes it for good).
        const challenge = await store.loginChallenges.take(digestToken(meta.loginChallenge), clock.now());
        if (!challenge) throw new LoginChallengeInvalid();
        await store.loginChallenges.put(challenge);
        return { options: await assertionOptions(challenge.userId, 'second-factor') };
      }),

    loginWithPasskey: (body, meta) =>
      withQuota(async (tally) => {
        await context.limit('passkeySignIn', meta, tally);
        const input = parseRequest(PasskeySignInRequest, await readBody(body));
        const response = input.response as unknown as AuthenticationResponseJSON;
        return finishLogin(
          context,
          meta.loginChallenge,
          meta,
          async (challenge) => ((await verifyAssertion(response, 'second-factor', challenge.userId)) ? { kind: 'passkey' } : null),
          tally,
          (record, m) => newDeviceNotice(context, record, m),
          true,
        );
      }),

    passkeyStepUpOptions: (meta) =>
      withQuota(async (tally) => {
        const session = await signedIn(context, meta);
        await countOptions(session, tally);
        if (!(await hasSecondFactor(context, session.user.id)) || (await store.passkeys.listByUser(session.user.id)).length === 0) throw new NotFound('Passkey');
        return { options: await assertionOptions(session.user.id, 'step-up') };
      }),

    async stepUpWithPasskey(body, meta) {
      const session = await signedIn(context, meta);
      const input = parseRequest(PasskeySignInRequest, await readBody(body));
      if (!(await verifyAssertion(input.response as unknown as AuthenticationResponseJSON, 'step-up', session.user.id))) throw badSignIn();
      await recordStepUp(context, session.digest, 'passkey');
    },
  };
}
