/**
 * The ID token checks of a sign-in through an OpenID Provider (issue 42's abuse list): a provider that
 * misbehaves on purpose, which no certified provider can be made to do. This is a small local
 * stand-in: a discovery document, its keys, an authorization endpoint that sends the browser back with
 * a code, and a token endpoint that answers an ID token crafted (with `jose`) as each case asks:
 * another `nonce`, another issuer or audience, expired, unsigned (`alg: none`), or signed by a key
 * that is not the provider's. Each must end in `error=identity_invalid` with no session; the well-formed
 * one signs in, so the cases fail for their one fault alone.
 */
// @module-tag socket
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT, type JWK } from 'jose';
import { createMemoryStore } from '@sl-accounts/store-memory';
import { createService, type Service } from '@sl-accounts/service';
import { request, testHasher } from '@sl-accounts/service/http/testing';

type Fault = 'none' | 'nonce' | 'issuer' | 'audience' | 'expired' | 'unsigned' | 'foreign-key';

let server: Server;
let issuer = '';
let fault: Fault = 'none';
const nonces = new Map<string, string>();
let signingKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
let foreignKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
let jwk: JWK;

beforeAll(async () => {
  const pair = await generateKeyPair('RS256', { extractable: true });
  signingKey = pair.privateKey;
  jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  foreignKey = (await generateKeyPair('RS256')).privateKey;
  server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    const json = (body: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/.well-known/openid-configuration') {
      return json({
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
      });
    }
    if (url.pathname === '/jwks') return json({ keys: [jwk] });
    if (url.pathname === '/authorize') {
      const code = `code-${nonces.size + 1}`;
      nonces.set(code, url.searchParams.get('nonce') ?? '');
      const back = new URL(url.searchParams.get('redirect_uri')!);
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state')!);
      res.writeHead(302, { location: back.href });
      return void res.end();
    }
    if (url.pathname === '/token') {
      let text = '';
      for await (const chunk of req) text += String(chunk);
      const nonce = nonces.get(new URLSearchParams(text).get('code') ?? '') ?? '';
      const now = Math.floor(Date.now() / 1000);
      const claims = {
        sub: 'mallory',
        email: 'mallory@example.com',
        email_verified: true,
        nonce: fault === 'nonce' ? 'another-nonce' : nonce,
      };
      const iss = fault === 'issuer' ? 'https://evil.example' : issuer;
      const aud = fault === 'audience' ? 'another-client' : 'rp-client';
      const [iat, exp] = fault === 'expired' ? [now - 7200, now - 3600] : [now, now + 300];
      const idToken =
        fault === 'unsigned'
          ? new UnsecuredJWT(claims).setIssuer(iss).setAudience(aud).setIssuedAt(iat).setExpirationTime(exp).encode()
          : await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuer(iss).setAudience(aud).setIssuedAt(iat).setExpirationTime(exp).sign(fault === 'foreign-key' ? foreignKey : signingKey);
      return json({ access_token: 'at', token_type: 'Bearer', expires_in: 300, id_token: idToken });
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await service?.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const store = createMemoryStore();
/** One service for the file (closing it would close the shared store). */
let service: Service | undefined;
const serviceFor = async (): Promise<Service> => (service ??= await build());
const build = (): Promise<Service> =>
  createService({
    store,
    migrate: false,
    hasher: testHasher,
    mcp: false,
    identityProviders: [{ id: 'crafted', issuer, clientId: 'rp-client', clientSecret: 'rp-secret', allowHttp: true }],
  });

/** A whole sign-in through the stand-in with `fault` in its ID token: the callback's answer. */
async function signInWith(service: Service, withFault: Fault) {
  fault = withFault;
  const started = await request<{ url: string }>(service.api, 'POST /api/sign-in/crafted', { json: {} });
  expect(started.status).toBe(200);
  const authorize = await fetch(started.json.url, { redirect: 'manual' });
  const back = new URL(authorize.headers.get('location')!);
  return request(service.api, `GET ${back.pathname}${back.search}`, { cookie: { sl_oauth: started.cookies.sl_oauth ?? '' } });
}

describe('ID token checks (a misbehaving stand-in provider)', () => {
  it('a well-formed ID token signs in (the stand-in itself is right)', async () => {
    const service = await serviceFor();
    const answer = await signInWith(service, 'none');
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/');
    expect(answer.cookies.sl_session).toBeTruthy();
    // The store is shared by the cases: the account goes, so each case below starts with none.
    expect(await store.users.delete((await store.users.findByEmail('mallory@example.com'))!.id)).toBe(true);
  });

  for (const [withFault, what] of [
    ['nonce', 'a nonce mismatch'],
    ['issuer', 'an ID token from another issuer'],
    ['audience', 'an ID token for another audience'],
    ['expired', 'an expired ID token'],
    ['unsigned', 'an unsigned ID token (alg: none)'],
    ['foreign-key', 'an ID token signed by a key that is not the provider’s'],
  ] as const) {
    it(`${what} is refused: error=identity_invalid, no session, no account`, async () => {
      const service = await serviceFor();
      const answer = await signInWith(service, withFault);
      expect(answer.status).toBe(303);
      expect(new URL(answer.headers.get('location')!, 'http://localhost').searchParams.get('error')).toBe('identity_invalid');
      expect(answer.cookies.sl_session).toBeFalsy();
      expect(await store.users.findByEmail('mallory@example.com')).toBeNull();
    });
  }
});
