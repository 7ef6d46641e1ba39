/**
 * The operator's API and CLI (issue 43): tokens parsed and compared, 401 then 429 per address,
 * the operations as thin adapters over core's use cases, bad input a clear 4xx; the CLI's statuses.
 */
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createAccounts, createAdmin, randomTokens } from '@sl-accounts/service/core';
import { ManualClock, signedInAtOnce, testHasher } from '@sl-accounts/service/core/testing';
import { createMemoryStore } from '@sl-accounts/store-memory';
import { adminHandler, ADMIN_FAILURES_PER_MINUTE, operatorOf, parseAdminTokens } from '../src/admin.ts';
import { adminMain, parseArguments } from '../src/admin-cli.ts';

const TOKEN = 'a'.repeat(43);
const silent = { info: () => {}, error: () => {} };
let server: Server | undefined;
afterEach(() => {
  server?.close();
  server?.closeAllConnections();
  server = undefined;
});

async function setup() {
  const store = createMemoryStore();
  const ports = { store, hasher: testHasher, clock: new ManualClock(), tokens: randomTokens };
  const accounts = createAccounts(ports);
  const admin = createAdmin(ports);
  const handle = adminHandler(admin, parseAdminTokens(`alice:${TOKEN}`), silent);
  server = createServer((req, res) => void handle(req, res)).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const call = (method: string, path: string, body?: unknown, token = TOKEN) =>
    fetch(base + path, { method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
  return { accounts, store, call, base };
}

describe('ADMIN_TOKENS', () => {
  it('takes name:token pairs, each token at least 32 bytes, never naming the token in an error', () => {
    expect(parseAdminTokens(`alice:${TOKEN}, bob:${'b'.repeat(32)}`).map((t) => t.name)).toEqual(['alice', 'bob']);
    expect(() => parseAdminTokens('alice:short')).toThrow(/at least 32 bytes/);
    expect(() => parseAdminTokens('alice:short')).not.toThrow(/short/);
    expect(() => parseAdminTokens(TOKEN)).toThrow(/name:token/);
    expect(() => parseAdminTokens(`a:${TOKEN} a:${TOKEN}`)).toThrow(/twice/);
  });

  it('names the operator of a right bearer token only', () => {
    const tokens = parseAdminTokens(`alice:${TOKEN} bob:${'b'.repeat(40)}`);
    expect(operatorOf(tokens, `Bearer ${'b'.repeat(40)}`)).toBe('bob');
    expect(operatorOf(tokens, `Bearer ${TOKEN}x`)).toBeNull();
    expect(operatorOf(tokens, TOKEN)).toBeNull();
    expect(operatorOf(tokens, undefined)).toBeNull();
  });
});

describe('the operator API', { tags: ['socket'] }, () => {
  it('finds, locks (the session ends at once; the right password is 403), records the operator, unlocks', async () => {
    const { accounts, call } = await setup();
    const signed = signedInAtOnce(await accounts.signup({ name: 'Ada', email: 'ada@example.com', password: 'correct horse' }, { clientIp: '203.0.113.1' }));
    const found = (await (await call('GET', '/admin/accounts?email=ADA')).json()) as { accounts: { id: number }[] };
    expect(found.accounts.map((a) => a.id)).toEqual([signed.user.id]);
    const id = signed.user.id;
    expect((await call('POST', `/admin/accounts/${id}/lock`)).status).toBe(400);
    const locked = await call('POST', `/admin/accounts/${id}/lock`, { reason: 'stolen' });
    expect(await locked.json()).toMatchObject({ ok: true, account: { locked: true }, endedSessions: 1 });
    await expect(accounts.me({ sessionToken: signed.session.token })).rejects.toMatchObject({ code: 'unauthenticated' });
    await expect(accounts.login({ email: 'ada@example.com', password: 'correct horse' }, { clientIp: '203.0.113.1' })).rejects.toMatchObject({ code: 'account_locked' });
    const events = (await (await call('GET', '/admin/activity?type=account-locked')).json()) as { events: { actor: string; details: object }[] };
    expect(events.events).toEqual([expect.objectContaining({ actor: 'alice', details: { reason: 'stolen' } })]);
    expect((await call('POST', `/admin/accounts/${id}/unlock`)).status).toBe(200);
    expect(signedInAtOnce(await accounts.login({ email: 'ada@example.com', password: 'correct horse' }, { clientIp: '203.0.113.1' })).user.id).toBe(id);
    expect((await call('GET', `/admin/accounts/${id}/export`)).status).toBe(200);
    expect((await call('DELETE', `/admin/accounts/${id}/sessions`)).status).toBe(200);
    expect((await call('DELETE', `/admin/accounts/${id}`, { reason: 'asked' })).status).toBe(200);
    expect((await call('GET', `/admin/accounts/${id}`)).status).toBe(404);
  });

  it('answers bad input with a clear 4xx, never a 500', async () => {
    const { call, base } = await setup();
    for (const [method, path, status] of [
      ['GET', '/admin/accounts/abc', 400],
      ['GET', '/admin/accounts?cursor=-1', 400],
      ['GET', '/admin/activity?type=nonsense', 400],
      ['GET', '/admin/accounts/12', 404],
      ['GET', '/admin/nothing', 404],
      ['PATCH', '/admin/accounts/1', 405],
    ] as const) {
      const res = await call(method, path);
      expect(res.status, `${method} ${path}`).toBe(status);
      expect(((await res.json()) as { ok: boolean }).ok).toBe(false);
    }
    const notJson = await fetch(`${base}/admin/accounts/1/lock`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body: '{' });
    expect(notJson.status).toBe(400);
    expect((await fetch(`${base}/admin/openapi.json`)).status).toBe(200);
  });

  it('answers a missing or wrong token 401, and 429 past the bound per address', async () => {
    const { call, base } = await setup();
    expect((await fetch(`${base}/admin/accounts`)).status).toBe(401);
    for (let i = 1; i < ADMIN_FAILURES_PER_MINUTE; i++) expect((await call('GET', '/admin/accounts', undefined, 'wrong')).status).toBe(401);
    const limited = await call('GET', '/admin/accounts', undefined, 'wrong');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('pnpm admin', () => {
  const run = async (argv: string[], answer?: string) => {
    const out: string[] = [];
    const err: string[] = [];
    const status = await adminMain(argv, { STORE: 'memory', PBKDF2_ITERATIONS: '1000' }, (l) => out.push(l), (l) => err.push(l), answer === undefined ? undefined : async () => answer);
    return { status, out: out.join('\n'), err: err.join('\n') };
  };

  it('parses options, and refuses unknown ones', () => {
    expect(parseArguments(['lock', '7', '--reason', 'why', '--json'])).toEqual({ command: 'lock', args: ['7'], options: { reason: 'why', json: true } });
    expect(() => parseArguments(['lock', '--reason'])).toThrow(/needs a value/);
    expect(() => parseArguments(['--bogus'])).toThrow(/unknown option/);
  });

  it('gives status 2 for bad usage and 1 for a failed operation, with a clear message', async () => {
    expect(await run(['bogus'])).toMatchObject({ status: 2, err: expect.stringContaining('unknown command bogus') });
    expect(await run([])).toMatchObject({ status: 2, err: expect.stringContaining('no command given') });
    expect(await run(['show'])).toMatchObject({ status: 2, err: expect.stringContaining('takes one account id') });
    expect(await run(['show', 'abc'])).toMatchObject({ status: 1, err: expect.stringContaining('is not an account id') });
    expect(await run(['show', '5', '--json'])).toMatchObject({ status: 1, err: expect.stringContaining('"code":"not_found"') });
    expect(await run(['find', '--json'])).toMatchObject({ status: 0, out: expect.stringContaining('"accounts": []') });
    expect(await run(['activity', '--type', 'nope'])).toMatchObject({ status: 1, err: expect.stringContaining('not an activity type') });
  });
});
