/**
 * How the contract reads the `sl_session` cookie from a Cookie header: `sessionTokenIn`, which the
 * operations and a host's guard (`authorize`, `session`) read it through alike.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '@sl-accounts/service/http';
import { ManualClock, request, testHasher } from '@sl-accounts/service/http/testing';
import { createService, type Service } from '@sl-accounts/service';
import { createMemoryStore } from '@sl-accounts/store-memory';
// An internal of this package: the one reader of the session cookie.
import { MAX_SESSION_COOKIES, sessionTokenIn } from '../src/operation-request.ts';

describe('sessionTokenIn', () => {
  it('is null without a Cookie header, with an empty one, or without the cookie', () => {
    expect(sessionTokenIn(undefined)).toBeNull();
    expect(sessionTokenIn('')).toBeNull();
    expect(sessionTokenIn('a=b; sl_device=p.q; sl_login=c')).toBeNull();
  });

  it('gives the one value sent', () => {
    expect(sessionTokenIn('sl_session=abc_-123')).toBe('abc_-123');
    expect(sessionTokenIn('a=b; sl_session=abc; c=d')).toBe('abc');
  });

  it('reads past spaces and tabs around pairs, names and values', () => {
    expect(sessionTokenIn('  a=b ;\tsl_session = abc\t;c=d')).toBe('abc');
    expect(sessionTokenIn('a=b;sl_session=abc')).toBe('abc');
    expect(sessionTokenIn(' sl_session=abc ')).toBe('abc');
  });

  it('gives a value sent twice once, and different values all, in the order sent', () => {
    expect(sessionTokenIn('sl_session=abc; sl_session=abc')).toBe('abc');
    expect(sessionTokenIn('sl_session=old; a=b; sl_session=new; sl_session=old')).toEqual(['old', 'new']);
  });

  it(`keeps at most ${MAX_SESSION_COOKIES} different values, the first ones sent`, () => {
    const values = Array.from({ length: MAX_SESSION_COOKIES + 4 }, (_, i) => `token${i}`);
    expect(sessionTokenIn(values.map((value) => `sl_session=${value}`).join('; '))).toEqual(values.slice(0, MAX_SESSION_COOKIES));
  });

  it('skips what is not the cookie with a value: no `=`, an empty value, another name that starts or ends alike', () => {
    expect(sessionTokenIn('sl_session')).toBeNull();
    expect(sessionTokenIn('sl_session abc')).toBeNull();
    expect(sessionTokenIn('sl_session=; sl_session= ')).toBeNull();
    expect(sessionTokenIn('sl_sessions=abc; xsl_session=def; sl_session_old=ghi')).toBeNull();
    expect(sessionTokenIn(';;; ;')).toBeNull();
    expect(sessionTokenIn('sl_session=; sl_session; sl_session=abc')).toBe('abc');
  });
});

describe('a host’s guard reads the cookie as the operations do', () => {
  let service: Service | undefined;
  afterEach(async () => {
    await service?.close();
    service = undefined;
  });
  // Quiet: the service's advice about its mailer and secrets is not what these cases are about.
  const start = async () => (service = await createService({ store: createMemoryStore(), clock: new ManualClock(), hasher: testHasher, logger: silentLogger }));

  it('finds the live session among other cookies, spaces and a stale session cookie sent first', async () => {
    const { api } = await start();
    const signup = await request(api, 'POST /api/signup', { json: { name: 'Ada', email: 'ada@example.com', password: 'correct horse' } });
    const token = signup.cookies.sl_session!;
    const cookie = ` theme=dark ;\tsl_session=stale-token-of-an-ended-session; sl_session = ${token} `;
    expect((await request(api, 'GET /api/me', { cookie })).status).toBe(200);
    expect((await api.session({ headers: { cookie } }))?.email).toBe('ada@example.com');
    expect((await api.authorize({ headers: { cookie } })).user?.email).toBe('ada@example.com');
  });

  it('answers the spec’s 401 without the cookie or with a malformed one, as the operations do', async () => {
    const { api } = await start();
    for (const cookie of ['theme=dark', 'sl_session', 'sl_session=', 'xsl_session=abc']) {
      expect((await request(api, 'GET /api/me', { cookie })).status, cookie).toBe(401);
      expect(await api.session({ headers: { cookie } }), cookie).toBeNull();
      const { answer } = await api.authorize({ headers: { cookie } });
      expect(answer?.status, cookie).toBe(401);
      expect(answer?.headers['set-cookie'], cookie).toContain('sl_session=; Max-Age=0');
    }
    expect(await api.session({ headers: {} })).toBeNull();
  });
});
