import { describe, expect, it } from 'vitest';
import { Pbkdf2PasswordHasher, type Mailer } from '@sl-accounts/core';
import { ManualClock } from '@sl-accounts/core/testing';
import type { HttpAnswer, HttpApi } from '@sl-accounts/http';
import { createMemoryStore } from '@sl-accounts/store-memory';
import { createService } from '@sl-accounts/service';

/** One request through `api.handle`, as a host would hand it over: no socket anywhere. */
async function call(api: HttpApi, method: string, url: string, init: { json?: unknown; cookie?: string } = {}): Promise<HttpAnswer> {
  const body = init.json === undefined ? null : Buffer.from(JSON.stringify(init.json));
  return api.handle({
    method,
    url,
    headers: {
      host: 'service.test',
      ...(body ? { 'content-type': 'application/json', 'content-length': String(body.length) } : {}),
      ...(init.cookie ? { cookie: init.cookie } : {}),
    },
    remoteAddress: '192.0.2.1',
    body: body ? (async function* () { yield body; })() : null,
  });
}

const sessionOf = (answer: HttpAnswer) => {
  const cookies = answer.headers['set-cookie'];
  const value = [cookies ?? []].flat().find((c) => c.startsWith('sl_session='));
  return value?.split(';')[0];
};

const ada = { name: 'Ada Lovelace', email: 'ada@example.org', password: 'correct horse battery' };

describe('createService', () => {
  it('composes the service without a socket: signup, the session, its expiry by the clock', async () => {
    const clock = new ManualClock();
    const service = await createService({ store: createMemoryStore(), clock, hasher: new Pbkdf2PasswordHasher({ iterations: 1 }) });
    try {
      const signup = await call(service.api, 'POST', '/api/signup', { json: ada });
      expect(signup.status).toBe(201);
      const cookie = sessionOf(signup);
      expect(cookie).toMatch(/^sl_session=[\w-]{43}$/);
      expect((await call(service.api, 'GET', '/api/me', { cookie })).status).toBe(200);
      clock.advance(7 * 24 * 3600 * 1000);
      expect((await call(service.api, 'GET', '/api/me', { cookie })).status).toBe(401);
    } finally {
      await service.close();
    }
  });

  it('serves the documents and /mcp by default, and no docs page unless given one', async () => {
    const service = await createService({ store: createMemoryStore(), basePath: '/accounts' });
    try {
      expect((await call(service.api, 'GET', '/accounts/openapi.json')).status).toBe(200);
      expect((await call(service.api, 'GET', '/accounts/docs/api')).status).toBe(404);
      const card = await call(service.api, 'GET', '/.well-known/mcp/server-card.json');
      expect(card.status).toBe(200);
      const { remotes, websiteUrl } = JSON.parse(String(card.body)) as { remotes: { url: string }[]; websiteUrl?: string };
      expect(websiteUrl).toBeUndefined();
      expect(remotes[0]!.url).toBe('http://service.test/accounts/mcp');
    } finally {
      await service.close();
    }
  });

  it('serves neither /mcp nor its card with mcp: false', async () => {
    const service = await createService({ store: createMemoryStore(), mcp: false });
    try {
      expect(service.mcp).toBeUndefined();
      expect((await call(service.api, 'GET', '/.well-known/mcp/server-card.json')).status).toBe(404);
    } finally {
      await service.close();
    }
  });

  it('hands queued mail to the mailer it is given, and close() waits for the reset written after the answer', async () => {
    const sent: string[] = [];
    const mailer: Mailer = { send: async (mail) => void sent.push(`${mail.to}: ${mail.subject}`) };
    let closed = false;
    const memory = createMemoryStore();
    const store = { ...memory, close: async () => void (closed = true) };
    const service = await createService({
      store,
      mailer,
      mail: { pollMs: 5 },
      hasher: new Pbkdf2PasswordHasher({ iterations: 1 }),
      accounts: { contactTo: 'operator@example.org' },
    });
    try {
      const contact = await call(service.api, 'POST', '/api/contact', { json: { name: 'Bo', email: 'bo@example.org', message: 'Hello there, operator.' } });
      expect(contact.status).toBe(200);
      const deadline = Date.now() + 10_000;
      while (sent.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(sent).toEqual(['operator@example.org: [sl-accounts] Contact message from Bo']);
    } finally {
      await service.close();
    }
    expect(closed).toBe(true);
  });
});
