/**
 * `@sl-accounts/service/http/testing`: `request` hands a request to `api.handle` as a host would and gives
 * back what a test reads; the service is the real one, on the memory store.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, request, testHasher } from '@sl-accounts/service/http/testing';
import { createService, type Service } from '@sl-accounts/service';
import { createMemoryStore } from '@sl-accounts/store-memory';

const ADA = { name: 'Ada', email: 'ada@example.com', password: 'correct horse' };

describe('request', () => {
  let service: Service | undefined;
  afterEach(async () => {
    await service?.close();
    service = undefined;
  });
  const start = async () => (service = await createService({ store: createMemoryStore(), clock: new ManualClock(), hasher: testHasher }));

  it('sends a JSON body and gives the status, the headers, the parsed JSON and the cookies set', async () => {
    const { api } = await start();
    const signup = await request(api, 'POST /api/signup', { json: ADA });
    expect(signup.status).toBe(201);
    expect(signup.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(signup.json).toEqual({ ok: true, user: { id: expect.any(Number), name: 'Ada', email: 'ada@example.com', emailVerified: false } });
    expect(JSON.parse(signup.text)).toEqual(signup.json);
    expect(signup.cookies.sl_session).toMatch(/^[\w-]{43}$/);
    expect(signup.headers.getSetCookie().find((c) => c.startsWith('sl_session='))).toMatch(/; HttpOnly; Secure; SameSite=Lax$/);
  });

  it('takes cookies as a header string or by name, and leaves out those an answer cleared', async () => {
    const { api } = await start();
    const { cookies } = await request(api, 'POST /api/signup', { json: ADA });
    expect((await request(api, 'GET /api/me', { cookie: cookies })).status).toBe(200);
    expect((await request(api, 'GET /api/me', { cookie: `sl_session=${cookies.sl_session}` })).status).toBe(200);
    const logout = await request(api, 'POST /api/logout', { cookie: cookies });
    expect(logout.status).toBe(200);
    expect(logout.cookies.sl_session).toBe('');
    const after = await request(api, 'GET /api/me', { cookie: logout.cookies });
    expect(after.status).toBe(401);
    expect(after.json).toEqual({ ok: false, error: expect.any(String), code: expect.any(String) });
  });

  it('comes from 192.0.2.1 unless given another address, and the limits count per address', async () => {
    const { api } = await start();
    const contact = { name: 'Bo', email: 'bo@example.com', message: 'Hello, is anyone there?' };
    for (let i = 0; i < 5; i++) expect((await request(api, 'POST /api/contact', { json: contact })).status).toBe(200);
    expect((await request(api, 'POST /api/contact', { json: contact, ip: '192.0.2.1' })).status).toBe(429);
    expect((await request(api, 'POST /api/contact', { json: contact, ip: '198.51.100.7' })).status).toBe(200);
  });

  it('sends a raw body with the headers given, and header names in any case', async () => {
    const { api } = await start();
    const typed = await request(api, 'POST /api/login', { body: '{"email":', headers: { 'Content-Type': 'application/json' } });
    expect(typed.status).toBe(400);
    expect(typed.json).toMatchObject({ ok: false });
    const bytes = await request(api, 'POST /api/login', { body: new TextEncoder().encode('email=a'), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(bytes.status).toBe(400);
  });

  it('asks as host localhost unless told otherwise; documents are written from it', async () => {
    const { api } = await start();
    const local = await request(api, 'GET /openapi.json');
    expect((local.json as { servers: { url: string }[] }).servers[0]!.url).toBe('http://localhost');
    const named = await request(api, 'GET /openapi.json', { headers: { host: 'api.example.org' } });
    expect((named.json as { servers: { url: string }[] }).servers[0]!.url).toBe('http://api.example.org');
    const secure = await request(api, 'GET /openapi.json', { headers: { host: 'api.example.org' }, secure: true });
    expect((secure.json as { servers: { url: string }[] }).servers[0]!.url).toBe('https://api.example.org');
  });

  it('gives a body that is not JSON as text, with json undefined', async () => {
    const { api } = await start();
    const guide = await request(api, 'GET /auth.md');
    expect(guide.status).toBe(200);
    expect(guide.headers.get('content-type')).toMatch(/^text\/markdown/);
    expect(guide.json).toBeUndefined();
    expect(guide.text).toContain('sl_session');
  });

  it('gives no body for HEAD, as hosts leave it out, and the headers a GET has', async () => {
    const { api } = await start();
    const head = await request(api, 'HEAD /openapi.json');
    const get = await request(api, 'GET /openapi.json');
    expect(head.status).toBe(200);
    expect(head.bytes).toHaveLength(0);
    expect(head.text).toBe('');
    expect(head.headers.get('content-length')).toBe(String(get.bytes.byteLength));
    expect(head.headers.get('etag')).toBe(get.headers.get('etag'));
  });

  it('refuses a target that is not "METHOD /path"', async () => {
    const { api } = await start();
    for (const target of ['/api/me', 'GET', 'get /api/me', 'GET  /api/me', 'GET /api/me extra']) {
      await expect(request(api, target)).rejects.toThrow(TypeError);
    }
  });
});

describe('the fakes beside it', () => {
  it('ManualClock stands still until advanced, by the milliseconds given', () => {
    const clock = new ManualClock('2030-05-01T10:00:00Z');
    expect(clock.now().toISOString()).toBe('2030-05-01T10:00:00.000Z');
    expect(clock.now().toISOString()).toBe('2030-05-01T10:00:00.000Z');
    clock.advance(7 * 24 * 3600 * 1000 + 1);
    expect(clock.now().toISOString()).toBe('2030-05-08T10:00:00.001Z');
  });

  it('testHasher is PBKDF2-SHA256 at one iteration: the production format, salted, and it verifies', async () => {
    const hash = await testHasher.hash('correct horse');
    expect(hash).toMatch(/^\$pbkdf2-sha256\$i=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
    expect(await testHasher.hash('correct horse')).not.toBe(hash);
    expect(await testHasher.verify('correct horse', hash)).toBe(true);
    expect(await testHasher.verify('correct horsE', hash)).toBe(false);
  });
});
