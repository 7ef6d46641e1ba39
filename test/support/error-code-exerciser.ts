/**
 * Which error `code`s each operation of the route table answers, found by calling it rather than
 * read from a hand list: every route, in-process on the memory store, as a stranger, as an account
 * without a second factor, and as one with TOTP (or a passkey) on whose step-up window has passed (a
 * login challenge pending, path parameters naming its own passkey), each with the route's example body, with its passwords right and wrong, with a
 * wrong and a right TOTP code, with an empty body, and from another site's page. A route added to the
 * table, or a body field another change adds (a password, a code), is exercised with no edit here.
 */
import { URI, type TOTP } from 'otpauth';
import { STEP_UP_WINDOW_MS, secretBox, type IdentityProvider } from '@sl-accounts/service/core';
import { ManualClock } from '@sl-accounts/service/core/testing';
import { API_ROUTES, type ApiRoute } from '@sl-accounts/service/http';
import { EXAMPLE_SIGNUP } from '@sl-accounts/service/http/examples';
import { testHasher } from '@sl-accounts/service/http/testing';
import { createService, type Service } from '@sl-accounts/service';
import { createMemoryStore } from '@sl-accounts/store-memory';
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import type { ObservedResponse } from './openapi-contract.ts';
import { softAuthenticator } from './soft-authenticator.ts';

/** One answer seen: the route, its status and the body's `code`. */
export interface SeenCode {
  readonly route: ApiRoute;
  readonly status: number;
  readonly code: string;
}

type AccountState = 'stranger' | 'plain' | 'totp' | 'passkey';
const STATES: readonly AccountState[] = ['stranger', 'plain', 'totp', 'passkey'];
const ORIGIN = 'http://localhost';
const PASSWORD_FIELDS = ['password', 'currentPassword'];
const WRONG_PASSWORD = 'not the password at all';

/** The body variants of a route: its example, its passwords right or wrong, with codes, empty. */
function bodies(route: ApiRoute, right: string, code: () => string | null): unknown[] {
  if (route.requestExample === undefined) return [undefined];
  const example = route.requestExample as Record<string, unknown>;
  const withPasswords = (password: string) => Object.fromEntries(Object.entries(example).map(([k, v]) => [k, PASSWORD_FIELDS.includes(k) ? password : v]));
  const variants: unknown[] = [example, withPasswords(right), withPasswords(WRONG_PASSWORD), {}];
  const current = code();
  if (current !== null) {
    // A code other than the current one is wrong whatever the window; the current one is right.
    const wrong = String((Number(current) + 500_000) % 1_000_000).padStart(6, '0');
    variants.push({ ...withPasswords(right), code: wrong }, { ...withPasswords(right), code: current });
  }
  return variants;
}

/** Every answer the run got, as a checker of the OpenAPI document takes it. */
export interface ObservedAnswer {
  readonly method: string;
  readonly url: URL;
  readonly response: ObservedResponse;
}

/** The documents the same service serves: the OpenAPI document, auth.md, the account skill. */
export interface ServedDocuments {
  readonly openapi: { paths: Record<string, Record<string, { responses: Record<string, { description: string; 'x-codes'?: string[] }> }>> };
  readonly authMd: string;
  readonly skill: string;
}

/** Calls every route in every state and variant: each error code seen, and the documents served. */
/**
 * Where the routes are called: by default a service in-process on a manual clock. A script may pass
 * a server over HTTP instead (through a checking proxy): its clock is then the real one, and the
 * client address travels in `X-Forwarded-For` (the server trusting one proxy).
 */
export interface ExerciseTarget {
  readonly fetch: (request: Request, clientAddress: string) => Promise<Response>;
  readonly clock: { now(): Date; advance(ms: number): void };
  readonly close: () => Promise<void>;
}

/**
 * An identity provider under the routes' example id that answers in-process (no network): its
 * authorization URL carries the state, and any callback with a code is one person. The whole flow
 * against a real provider is test/http/sign-in-providers.test.ts's.
 */
const STUB_PROVIDER: IdentityProvider = {
  id: 'google',
  name: 'Google',
  kind: 'oidc',
  authorizationUrl: async (redirectUri, checks) => new URL(`https://idp.example/authorize?redirect_uri=${encodeURIComponent(redirectUri)}&state=${checks.state}`),
  finish: async () => ({ issuer: 'https://idp.example', subject: 'stub-person', email: 'stub-person@example.com', emailVerified: true, name: 'Stub Person' }),
};

async function inProcess(): Promise<ExerciseTarget> {
  const clock = new ManualClock();
  const service: Service = await createService({
    store: createMemoryStore(),
    hasher: testHasher,
    clock,
    mailer: { send: async () => {} },
    linkBase: ORIGIN,
    publicUrl: ORIGIN,
    accounts: { secrets: secretBox(Buffer.alloc(32, 7)), identityProviders: [STUB_PROVIDER] },
  });
  return { fetch: (request, clientAddress) => service.fetch(request, { clientAddress }), clock, close: () => service.close() };
}

export async function exerciseErrorCodes(
  routes: readonly ApiRoute[] = API_ROUTES,
  target?: ExerciseTarget,
): Promise<{ seen: SeenCode[]; documents: ServedDocuments; observed: ObservedAnswer[] }> {
  const { fetch: send, clock, close } = target ?? (await inProcess());
  let client = 0;
  const observed: ObservedAnswer[] = [];
  /** Each call from its own address, so no per-client limit answers for another variant. */
  const call = async (method: string, path: string, body: unknown, headers: Record<string, string> = {}) => {
    client++;
    const request = new Request(`${ORIGIN}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const response = await send(request, `10.${(client >> 16) & 255}.${(client >> 8) & 255}.${client & 255}`);
    const text = await response.text();
    const answer = (() => {
      try {
        return JSON.parse(text) as Record<string, unknown>;
      } catch {
        return null;
      }
    })();
    const setCookies = response.headers.getSetCookie();
    observed.push({ method, url: new URL(request.url), response: { status: response.status, headers: response.headers, setCookies, text, body: answer } });
    return { status: response.status, body: answer, cookies: setCookies.map((c) => c.split(';')[0]!) };
  };
  let accountNumber = 0;
  const authenticator = softAuthenticator(ORIGIN);
  /** A fresh account in `state`: its cookies (session, and with a factor a pending login challenge), a code source, its passkey's id. */
  async function account(state: AccountState): Promise<{ cookies: string[]; code: () => string | null; passkeyId?: string }> {
    if (state === 'stranger') return { cookies: [], code: () => null };
    const email = `user${++accountNumber}@example.com`;
    const password = EXAMPLE_SIGNUP.password;
    const signup = await call('POST', '/api/signup', { ...EXAMPLE_SIGNUP, email });
    if (signup.status !== 201) throw new Error(`signup of ${email} answered ${signup.status}`);
    const session = signup.cookies.find((c) => c.startsWith('sl_session='))!;
    if (state === 'plain') return { cookies: [session], code: () => null };
    if (state === 'passkey') {
      // Options without a body; where they ask for the password (a proof in the request), with it.
      let options = await call('POST', '/api/passkeys/registration-options', undefined, { cookie: session });
      if (options.status === 400) options = await call('POST', '/api/passkeys/registration-options', { password }, { cookie: session });
      const { response } = authenticator.register(options.body!.options as PublicKeyCredentialCreationOptionsJSON);
      const added = await call('POST', '/api/passkeys', { response }, { cookie: session });
      if (added.status !== 201) throw new Error(`adding a passkey answered ${added.status}: ${JSON.stringify(added.body)}`);
      clock.advance(STEP_UP_WINDOW_MS + 60_000);
      const login = await call('POST', '/api/login', { email, password });
      return { cookies: [session, login.cookies.find((c) => c.startsWith('sl_login='))!], code: () => null, passkeyId: response.id };
    }
    const started = await call('POST', '/api/two-factor/totp', { password }, { cookie: session });
    const totp = URI.parse(started.body!.otpauthUri as string) as TOTP;
    const code = () => totp.generate({ timestamp: clock.now().getTime() });
    const confirmed = await call('POST', '/api/two-factor/totp/confirm', { code: code() }, { cookie: session });
    if (confirmed.status !== 200) throw new Error(`TOTP confirm answered ${confirmed.status}`);
    // Past the step-up window and the code's step: the session alone proves no factor now.
    clock.advance(STEP_UP_WINDOW_MS + 60_000);
    const login = await call('POST', '/api/login', { email, password });
    const challenge = login.cookies.find((c) => c.startsWith('sl_login='))!;
    return { cookies: [session, challenge], code };
  }
  /** The passkey ceremonies as a user goes through them (add, sign in, a login's second step, step-up, rename, remove), then ending a session. */
  async function passkeyJourney() {
    const email = `journey@example.com`;
    const { password } = EXAMPLE_SIGNUP;
    const signup = await call('POST', '/api/signup', { ...EXAMPLE_SIGNUP, email });
    let session = signup.cookies.find((c) => c.startsWith('sl_session='))!;
    let options = await call('POST', '/api/passkeys/registration-options', undefined, { cookie: session });
    if (options.status === 400) options = await call('POST', '/api/passkeys/registration-options', { password }, { cookie: session });
    const { passkey, response } = authenticator.register(options.body!.options as PublicKeyCredentialCreationOptionsJSON);
    await call('POST', '/api/passkeys', { response }, { cookie: session });
    const signInOptions = await call('POST', '/api/passkeys/sign-in-options', undefined);
    const signedIn = await call('POST', '/api/passkeys/sign-in', { response: authenticator.assert(passkey, signInOptions.body!.options as PublicKeyCredentialRequestOptionsJSON) });
    session = signedIn.cookies.find((c) => c.startsWith('sl_session='))!;
    const login = await call('POST', '/api/login', { email, password });
    const challenge = login.cookies.find((c) => c.startsWith('sl_login='))!;
    const loginOptions = await call('POST', '/api/login/passkey-options', undefined, { cookie: challenge });
    await call('POST', '/api/login/passkey', { response: authenticator.assert(passkey, loginOptions.body!.options as PublicKeyCredentialRequestOptionsJSON) }, { cookie: challenge });
    clock.advance(STEP_UP_WINDOW_MS + 60_000);
    const stepUpOptions = await call('POST', '/api/passkeys/step-up-options', undefined, { cookie: session });
    await call('POST', '/api/passkeys/step-up', { response: authenticator.assert(passkey, stepUpOptions.body!.options as PublicKeyCredentialRequestOptionsJSON) }, { cookie: session });
    await call('PATCH', `/api/passkeys/${passkey.id}`, { name: 'Phone' }, { cookie: session });
    await call('GET', '/api/passkeys', undefined, { cookie: session });
    // Removing a way to sign in takes the proof in its own request (issue 39): the password and an
    // answer of the passkey made for a step-up.
    const proofOptions = await call('POST', '/api/passkeys/step-up-options', undefined, { cookie: session });
    await call('DELETE', `/api/passkeys/${passkey.id}`, { password, passkey: authenticator.assert(passkey, proofOptions.body!.options as PublicKeyCredentialRequestOptionsJSON) }, { cookie: session });
    const sessions = await call('GET', '/api/sessions', undefined, { cookie: session });
    await call('DELETE', `/api/sessions/${(sessions.body!.sessions as { id: string }[])[0]!.id}`, undefined, { cookie: session });
  }
  /** A provider's link as a user goes through it: start with the password, the callback, the list, the unlink. */
  async function providerJourney() {
    const email = 'linking@example.com';
    const signup = await call('POST', '/api/signup', { ...EXAMPLE_SIGNUP, email });
    const session = signup.cookies.find((c) => c.startsWith('sl_session='))!;
    const started = await call('POST', '/api/me/identities/google', { password: EXAMPLE_SIGNUP.password }, { cookie: session });
    const state = new URL(started.body!.url as string).searchParams.get('state')!;
    const oauth = started.cookies.find((c) => c.startsWith('sl_oauth='))!;
    await call('GET', `/api/sign-in/google/callback?code=stub&state=${state}`, undefined, { cookie: oauth });
    await call('GET', '/api/me/identities', undefined, { cookie: session });
    await call('DELETE', '/api/me/identities/google', { password: EXAMPLE_SIGNUP.password }, { cookie: session });
  }
  const seen: SeenCode[] = [];
  const note = (route: ApiRoute, answer: { status: number; body: Record<string, unknown> | null }) => {
    if (answer.body?.ok === false && typeof answer.body.code === 'string') seen.push({ route, status: answer.status, code: answer.body.code });
  };
  try {
    for (const route of routes) {
      const pathFor = (passkeyId?: string) => route.path.replace(/\{(\w+)\}/g, (_, name: string) => (passkeyId && route.path.startsWith('/api/passkeys/') ? passkeyId : route.pathParameters![name]!.example));
      note(route, await call(route.method, pathFor(), route.requestExample, { 'sec-fetch-site': 'cross-site' }));
      for (const state of STATES) {
        // An account serves variant after variant until one may have changed it (a success, or a right
        // code, which steps the session up); then the next variant gets a fresh one.
        let current: Awaited<ReturnType<typeof account>> | undefined;
        for (const variant of bodies(route, EXAMPLE_SIGNUP.password, state === 'totp' ? () => '000000' : () => null).keys()) {
          const send = async () => {
            current ??= await account(state);
            const { cookies, code, passkeyId } = current;
            const body = bodies(route, EXAMPLE_SIGNUP.password, code)[variant] as Record<string, unknown> | undefined;
            return { body, code, answer: await call(route.method, pathFor(passkeyId), body, cookies.length > 0 ? { cookie: cookies.join('; ') } : {}) };
          };
          let { body, code, answer } = await send();
          // An account's own limit (mailed links, password checks) used up by earlier variants: again on a fresh one.
          if (answer.status === 429) {
            current = undefined;
            ({ body, code, answer } = await send());
          }
          note(route, answer);
          if (answer.status < 300 || (body?.code !== undefined && body.code === code())) current = undefined;
        }
      }
    }
    const text = async (path: string) => (await send(new Request(`${ORIGIN}${path}`), '10.255.255.255')).text();
    const documents: ServedDocuments = {
      openapi: JSON.parse(await text('/openapi.json')) as ServedDocuments['openapi'],
      authMd: await text('/auth.md'),
      skill: await text('/.well-known/agent-skills/account-api/SKILL.md'),
    };
    await passkeyJourney();
    await providerJourney();
    return { seen, documents, observed };
  } finally {
    await close();
  }
}

let once: ReturnType<typeof exerciseErrorCodes> | undefined;
/** One run for every suite of the test run that asks (the files share a module graph): its answers are only read. */
export function exercisedRoutes(): ReturnType<typeof exerciseErrorCodes> {
  return (once ??= exerciseErrorCodes());
}
