/**
 * The core embedded in a plain node:http host, with no Koa: the public factory is all a host needs.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Pbkdf2PasswordHasher, createAccounts, isDomainError, randomTokens, systemClock, type Accounts } from '@sl/core';
import { createMemoryStore } from '@sl/store-memory';

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

function host(accounts: Accounts) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const token = /(?:^|;\s*)sid=([^;]+)/.exec(req.headers.cookie ?? '')?.[1] ?? null;
    const meta = { clientIp: req.socket.remoteAddress ?? 'unknown', sessionToken: token };
    try {
      if (req.url === '/register' && req.method === 'POST') {
        const { user, session } = await accounts.signup(() => readJson(req), meta);
        res.setHeader('set-cookie', `sid=${session.token}; HttpOnly`);
        return send(201, user);
      }
      if (req.url === '/whoami') return send(200, await accounts.me(meta));
      return send(404, { error: 'not found' });
    } catch (error) {
      if (isDomainError(error)) return send(error.code === 'unauthenticated' ? 401 : 400, { error: error.code });
      return send(500, { error: 'internal' });
    }
  };
}

describe('embedding the core in node:http', () => {
  let url: string;
  let server: ReturnType<typeof createServer>;
  beforeAll(async () => {
    const accounts = createAccounts({ ...createMemoryStore(), hasher: new Pbkdf2PasswordHasher({ iterations: 1000 }), clock: systemClock, tokens: randomTokens });
    server = createServer(host(accounts)).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => server.close());

  it('signs up and reads the current user through the host', async () => {
    const created = await fetch(`${url}/register`, { method: 'POST', body: JSON.stringify({ name: 'Host', email: 'host@example.com', password: 'embedded!' }) });
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({ id: 1, name: 'Host', email: 'host@example.com' });
    const cookie = created.headers.get('set-cookie')!.split(';')[0]!;
    const me = await fetch(`${url}/whoami`, { headers: { cookie } });
    expect(await me.json()).toEqual({ id: 1, name: 'Host', email: 'host@example.com' });
    expect((await fetch(`${url}/whoami`)).status).toBe(401);
  });

  it('maps the domain errors the host chooses to handle', async () => {
    const res = await fetch(`${url}/register`, { method: 'POST', body: JSON.stringify({ name: 'H' }) });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'validation' });
  });
});
