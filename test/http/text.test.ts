/**
 * Text over HTTP on every store: what the core refuses is 400 everywhere (it used to be 500 on
 * Postgres and PGlite, and kept on memory); what it accepts comes back exactly (issue 9).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningServer } from '@sl-accounts/server';
import { freshIp, request, sessionFrom } from '../support/client.ts';
import { MATRIX, describeEachServer, startTestServer } from '../support/server.ts';

describeEachServer('text', MATRIX, ({ host, store }) => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startTestServer({ host, store, env: { TRUST_PROXY: '1' } });
  });
  afterAll(() => server?.close());
  const post = (path: string, json: unknown) => request(server.url, path, { json, ip: freshIp() });

  it.each([
    ['NUL', 'ab\u0000cd'],
    ['a lone high surrogate', 'ab\ud800cd'],
    ['a lone low surrogate', 'ab\udfffcd'],
  ])('%s: 400 in the name, e-mail, message and password, never 500', async (_label, bad) => {
    const email = `${freshIp()}@example.com`;
    const cases = [
      ['/api/signup', { name: bad, email, password: 'long enough' }, 'name'],
      ['/api/signup', { name: 'Ada', email: `a${bad}@example.com`, password: 'long enough' }, 'email'],
      ['/api/signup', { name: 'Ada', email, password: bad.repeat(4) }, 'password'],
      ['/api/login', { email, password: bad }, 'password'],
      ['/api/contact', { name: bad, email: 'a@example.com', message: 'Hello there, a question.' }, 'name'],
      ['/api/contact', { name: 'Ada', email: 'a@example.com', message: `Hello ${bad} there, a question.` }, 'message'],
    ] as const;
    for (const [path, body, field] of cases) {
      const res = await post(path, body);
      expect(res.status, `${path} ${field}`).toBe(400);
      expect(res.body).toMatchObject({ ok: false, issues: [{ path: field, message: 'must not contain U+0000 or unpaired surrogates' }] });
    }
    // Nothing was created by the refused signups.
    expect((await post('/api/signup', { name: 'Ada', email, password: 'long enough' })).status).toBe(201);
  });

  it('a password of lone surrogates is refused, so it can never log in as another one', async () => {
    expect((await post('/api/signup', { name: 'Sur', email: 'sur@example.com', password: '\ud800'.repeat(8) })).status).toBe(400);
    expect((await post('/api/signup', { name: 'Sur', email: 'sur@example.com', password: '\ufffd'.repeat(8) })).status).toBe(201);
    for (const password of ['\ud800'.repeat(8), '\udfff'.repeat(8)]) expect((await post('/api/login', { email: 'sur@example.com', password })).status).toBe(400);
    expect((await post('/api/login', { email: 'sur@example.com', password: '\ufffd'.repeat(8) })).status).toBe(200);
  });

  it('control characters (in a password and a message; a name refuses them), noncharacters and astral characters come back exactly', async () => {
    const name = 'Zoë \uFFFE\uFFFF\uFDD0\uFFFD \u200Fabc \u{10FFFF}\u{1F600}';
    const controls = '\u0007\u001B[0m\u007F\u0085 \u202Eabc\u202C';
    const password = '\u0001\uFFFF\u{1F600}\u202E pass';
    const signup = await post('/api/signup', { name, email: 'ctl@example.com', password });
    expect(signup.status).toBe(201);
    expect(signup.body).toMatchObject({ user: { name } });
    const me = await request(server.url, '/api/me', { session: sessionFrom(signup)! });
    expect(me.body).toMatchObject({ user: { name, email: 'ctl@example.com' } });
    expect((await post('/api/login', { email: 'ctl@example.com', password })).status).toBe(200);
    expect((await post('/api/contact', { name, email: 'ctl@example.com', message: `${name} ${controls} message` })).status).toBe(200);
  });
});
