/**
 * Passkeys (WebAuthn), with `@simplewebauthn/server` doing every check of what the authenticator
 * signed (CBOR, COSE keys, signatures, the origin, the RP ID, the flags): the signed-in owner
 * registers, lists, renames and removes them, and a discoverable passkey signs in on its own
 * (docs/decisions/0045-passkeys.md).
 *
 * - **Challenges** are the library's (32 random bytes; a registration's carries the credential
 *   generation of the owner's proof after them), stored as their SHA-256 digest with what
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
import { activityEntry } from './activity-entries.ts';
import { randomBytes } from 'node:crypto';
import { decodeClientDataJSON, generateAuthenticationOptions, generateRegistrationOptions, verifyAuthenticationResponse, verifyRegistrationResponse } from './webauthn.ts';
import type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON } from './webauthn.ts';
import { InvalidCredentials, LoginChallengeInvalid, NotFound, Unauthenticated, ValidationError } from '../errors.ts';
import { accountKey, countRequest, PASSKEY_OPTIONS_SESSION_LIMIT, PASSKEY_OPTIONS_SESSION_POLICY, PASSKEY_SIGN_IN_TOTAL_LIMIT, PASSKEY_SIGN_IN_TOTAL_POLICY, withQuota, type Quota, type Tally } from '../rate-limits.ts';
import { hasSecondFactor, recordStepUp } from './second-factor.ts';
import { endSignIn, finishLogin, takeLoginChallenge, type SignedIn } from './login-flow.ts';
import { proveOwner, recoveryCodes } from './two-factor.ts';
import type { LoginChallengeMeta } from './login.ts';
import { parseRequest, PasskeyProofRequest, PasskeyRegistrationRequest, PasskeyRenameRequest, PasskeySignInRequest } from '../schemas.ts';
import { PASSKEY_CHALLENGES_PER_ACCOUNT, type OneTimeToken, type OneTimeTokenPurpose, type Passkey, type UserRecord } from '../store.ts';
import { digestToken } from '../system.ts';
import { accountNotice } from './account-notices.ts';
import type { UseCaseContext } from './context.ts';

export type { RelyingParty } from './context.ts';
import { readBody, type RequestBody, type RequestMeta, type SessionMeta } from './request.ts';
import { lostRace, signedIn, type SignedInSession } from './sessions.ts';

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
  /**
   * Options for `navigator.credentials.create()` for the signed-in user, once the body proved the
   * owner (`proveOwner`: the password, and with a factor on a code, a recovery code or a passkey's
   * step-up answer); stores their challenge. The device is asked only after this: a request the
   * service would refuse never reaches it. Throws Unauthenticated, ValidationError, WrongPassword,
   * SecondFactorRequired, WrongCode or RateLimited.
   */
  passkeyRegistrationOptions(body: RequestBody, meta: RequestMeta): Promise<{ readonly options: PublicKeyCredentialCreationOptionsJSON } & Quota>;
  /**
   * Verifies the browser's answer to those options and adds the passkey; every other session of the
   * user ends and a notice is mailed. The account's first factor comes with its recovery codes
   * (shown once). Throws Unauthenticated or ValidationError (a malformed answer, one to a challenge
   * that is not this account's registration, used or expired, one without user verification, or a
   * passkey stored already).
   */
  registerPasskey(body: RequestBody, meta: RequestMeta): Promise<{ readonly passkey: ListedPasskey; readonly recoveryCodes?: readonly string[] }>;
  /** The signed-in user's passkeys, oldest first. Throws Unauthenticated. */
  listPasskeys(meta: SessionMeta): Promise<readonly ListedPasskey[]>;
  /** Renames one of the signed-in user's passkeys. Throws Unauthenticated, ValidationError or NotFound. */
  renamePasskey(id: string, body: RequestBody, meta: RequestMeta): Promise<ListedPasskey>;
  /**
   * Removes one of the signed-in user's passkeys once the body proved the owner (as for the
   * registration's options); every other session ends and a notice is mailed; with the last factor
   * go the recovery codes. Throws Unauthenticated, ValidationError, WrongPassword,
   * SecondFactorRequired, WrongCode, NotFound or RateLimited.
   */
  removePasskey(id: string, body: RequestBody, meta: RequestMeta): Promise<Quota>;
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
/** The WebAuthn ceremony a challenge was issued for: a ceremony answers only the kind it asked for. */
type PasskeyChallengePurpose = 'register' | 'sign-in' | 'second-factor' | 'step-up';

/** The single-use token purposes of WebAuthn challenges: a take of one never serves a link or a login challenge. */
const PASSKEY_PURPOSES: readonly OneTimeTokenPurpose[] = ['passkey-register', 'passkey-sign-in', 'passkey-second-factor', 'passkey-step-up'];

const userHandleOf = (userId: number) => new TextEncoder().encode(String(userId));

const listed = (p: Passkey): ListedPasskey => ({ id: p.id, name: p.name, createdAt: p.createdAt.toISOString(), lastUsedAt: p.lastUsedAt?.toISOString() ?? null });

/**
 * A registration's challenge: 32 random bytes (as the library's own), then the credential generation
 * the owner's proof was checked under (8 bytes, big-endian). The authenticator signs the whole
 * challenge and the store keeps its digest, so the generation read back from a taken challenge is
 * the one the service wrote: the add goes through only while the account is still at it, and a
 * password change between the proof and the add voids the proof (no column for it in the store).
 */
function registrationChallenge(generation: number): Uint8Array<ArrayBuffer> {
  const challenge = Buffer.alloc(40);
  randomBytes(32).copy(challenge);
  challenge.writeBigUInt64BE(BigInt(generation), 32);
  return new Uint8Array(challenge);
}

/** The generation a registration's challenge (base64url) carries; `null` for one of another shape. */
function generationIn(challenge: string): number | null {
  const bytes = Buffer.from(challenge, 'base64url');
  return bytes.length === 40 ? Number(bytes.readBigUInt64BE(32)) : null;
}

/** The refusal of a registration's answer, whatever was wrong with it (the library's reason stays out of the answer). */
const badRegistration = () => new ValidationError([{ path: 'response', message: 'is not a valid answer to a passkey registration of this account (it may have expired: ask for new options)' }]);

/** The refusal of a sign-in, whatever was wrong: the same for an unknown passkey and a bad signature. */
const badSignIn = () => new InvalidCredentials('The passkey was not accepted');

export function passkeyUseCases(context: UseCaseContext): PasskeyUseCases {
  const { store, clock } = context.ports;

  /**
   * Stores a fresh challenge (by digest) for `purpose`; an account keeps its newest PASSKEY_CHALLENGES_PER_ACCOUNT.
   * Throws `gone()` when the account was deleted meanwhile (the store keeps no challenge of an account it no longer has).
   */
  async function remember(challenge: string, purpose: PasskeyChallengePurpose, userId: number | null, gone: () => Error = () => new Unauthenticated()): Promise<void> {
    const createdAt = clock.now();
    const token = { digest: digestToken(challenge), purpose: `passkey-${purpose}` as const, userId, credentialGeneration: null, email: null, data: null, failures: 0, createdAt, expiresAt: new Date(createdAt.getTime() + PASSKEY_CHALLENGE_TTL_MS) };
    if (!(await store.oneTimeTokens.put(token, userId === null ? {} : { keepNewest: { purposes: PASSKEY_PURPOSES, count: PASSKEY_CHALLENGES_PER_ACCOUNT } }))) throw gone();
  }

  /**
   * Takes the challenge the browser answered (read from its client data, which the library checks
   * again): once, whatever the answer turns out to be. `null` when it was never issued, was used,
   * expired, or is not `purpose`'s (then it is used up all the same).
   */
  async function take(clientDataJSON: string, purpose: PasskeyChallengePurpose): Promise<{ readonly challenge: string; readonly stored: OneTimeToken } | null> {
    let challenge: string;
    try {
      challenge = decodeClientDataJSON(clientDataJSON).challenge;
    } catch {
      return null;
    }
    if (typeof challenge !== 'string' || challenge === '' || challenge.length > 200) return null;
    // Taken whatever WebAuthn ceremony it was for (used up all the same), never a token of another kind.
    const stored = await store.oneTimeTokens.take(PASSKEY_PURPOSES, digestToken(challenge), clock.now());
    return stored && stored.purpose === `passkey-${purpose}` ? { challenge, stored } : null;
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
  async function assertionOptions(userId: number, purpose: PasskeyChallengePurpose, gone?: () => Error): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const rp = context.relyingParty();
    const passkeys = await store.passkeys.listByUser(userId);
    const options = await generateAuthenticationOptions({
      rpID: rp.id,
      userVerification: 'required',
      timeout: PASSKEY_CHALLENGE_TTL_MS,
      allowCredentials: passkeys.map((p) => ({ id: p.id, transports: [...p.transports] })),
    });
    await remember(options.challenge, purpose, userId, gone);
    return options;
  }

  /** The check of a proof's `passkey` (a step-up answer of this account's passkey), or `null` when the body carried none. */
  function passkeyProof(answer: unknown, userId: number): (() => Promise<boolean>) | null {
    if (answer === undefined) return null;
    return async () => (await verifyAssertion(answer as AuthenticationResponseJSON, 'step-up', userId)) !== null;
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
    passkeyRegistrationOptions: (body, meta) =>
      withQuota(async (tally) => {
        const session = await signedIn(context, meta);
        await countOptions(session, tally);
        const input = parseRequest(PasskeyProofRequest, await readBody(body));
        // Adding a way to sign in: the proof is in this request, never the session alone (ADR 0045).
        const proved = await proveOwner(context, session, input, meta, tally, passkeyProof(input.passkey, session.user.id));
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
          challenge: registrationChallenge(proved.credentialGeneration),
        });
        await remember(options.challenge, 'register', session.user.id);
        return { options };
      }),

    async registerPasskey(body, meta) {
      const session = await signedIn(context, meta);
      const input = parseRequest(PasskeyRegistrationRequest, await readBody(body));
      const rp = context.relyingParty();
      // The owner's proof came with the options: a challenge of this account's registration is issued only after it.
      const taken = await take(input.response.response.clientDataJSON, 'register');
      // Another account's challenge (or a sign-in's) proves nothing about this one.
      if (!taken || taken.stored.userId !== session.user.id) throw badRegistration();
      const generation = generationIn(taken.challenge);
      const record = await owner(session);
      // The credentials changed since the proof (a password change or reset, a factor added or removed): the proof is void.
      if (generation === null || record.credentialGeneration !== generation) throw badRegistration();
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
      // The first factor brings the recovery codes (as TOTP's confirm does): whoever turns a factor on
      // holds a way back in without it. Decided under the generation read above, which the add compares.
      const codes = (await hasSecondFactor(context, record.id)) ? null : recoveryCodes();
      // Added only while the generation is still the proof's: of a change racing this add, one wins.
      const added = await context.manager.addPasskey(passkey, generation, session.digest, notice, codes?.digests ?? null, activityEntry(context, 'factor-added', meta, { kind: 'passkey', name: passkey.name }));
      // The account's credentials changed while the answer was checked: nothing was added.
      if (added === null) throw await lostRace(context, session);
      if (added === 'taken') throw new ValidationError([{ path: 'response', message: 'is a passkey registered already' }]);
      return codes ? { passkey: listed(passkey), recoveryCodes: codes.codes } : { passkey: listed(passkey) };
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

    removePasskey: (id, body, meta) =>
      withQuota(async (tally) => {
        const session = await signedIn(context, meta);
        const input = parseRequest(PasskeyProofRequest, await readBody(body));
        const passkey = await store.passkeys.findById(id);
        if (!passkey || passkey.userId !== session.user.id) throw new NotFound('Passkey');
        // Removing a way to sign in: the proof is in this request, never the session alone (ADR 0045).
        const record = await proveOwner(context, session, input, meta, tally, passkeyProof(input.passkey, session.user.id));
        const notice = await accountNotice(context, 'passkey-removed', meta, record, { passkeyName: passkey.name });
        // The last factor takes the recovery codes with it (as turning TOTP off does); under the generation the add compares.
        const lastFactor = !(await store.totp.find(record.id))?.enabled && (await store.passkeys.listByUser(record.id)).length === 1;
        const removed = await context.manager.removePasskey(record.id, id, record.credentialGeneration, session.digest, notice, lastFactor, activityEntry(context, 'factor-removed', meta, { kind: 'passkey', name: passkey.name }));
        if (removed === 'missing') throw new NotFound('Passkey');
        if (removed === null) throw await lostRace(context, session);
        return {};
      }),

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
        // A passkey is a factor: the session may make the owner's changes for the step-up's window.
        return endSignIn(context, { account: verified.record, generation: verified.record.credentialGeneration, factor: 'passkey', method: 'passkey', failure: badSignIn }, meta);
      }),

    passkeyLoginOptions: (meta) =>
      withQuota(async (tally) => {
        await context.limit('passkeySignIn', meta, tally);
        if (!meta.loginChallenge) throw new LoginChallengeInvalid();
        // A look at the challenge: taken and put back as it was (the second step takes it for good).
        const challenge = await takeLoginChallenge(context, meta.loginChallenge);
        if (!challenge) throw new LoginChallengeInvalid();
        await store.oneTimeTokens.put(challenge, { underGeneration: true });
        // An account deleted since its first factor: the login in progress is gone with it.
        return { options: await assertionOptions(challenge.userId, 'second-factor', () => new LoginChallengeInvalid()) };
      }),

    loginWithPasskey: (body, meta) =>
      withQuota(async (tally) => {
        await context.limit('passkeySignIn', meta, tally);
        const input = parseRequest(PasskeySignInRequest, await readBody(body));
        const response = input.response as unknown as AuthenticationResponseJSON;
        return finishLogin(context, meta.loginChallenge, meta, async (challenge) => ((await verifyAssertion(response, 'second-factor', challenge.userId)) ? { kind: 'passkey' } : null), tally, true);
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
