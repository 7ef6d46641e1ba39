import { describe, expect, it } from 'vitest';
import { Pbkdf2PasswordHasher, type Mailer } from '@sl-accounts/service/core';
import { ManualClock } from '@sl-accounts/service/core/testing';
import type { HttpAnswer, HttpApi } from '@sl-accounts/service/http';
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

  it('sums up the mails a full outbox drops: the first at once, then at most one warn line per interval, each with the counts per kind; the hook hears every one', async () => {
    const warnings: { fields: Record<string, unknown>; message: string }[] = [];
    const logger = { debug() {}, info() {}, error() {}, warn: (fields: object, message: string) => void warnings.push({ fields: fields as Record<string, unknown>, message }) };
    const down: Mailer = { send: async () => Promise.reject(new Error('ECONNREFUSED')) };
    const heard: string[] = [];
    const service = await createService({
      store: createMemoryStore({ outboxCapacity: 2 }),
      logger,
      mailer: down,
      mail: { pollMs: 3_600_000, droppedLogIntervalMs: 3_600_000, onDropped: (mail) => void heard.push(mail.kind) },
      hasher: new Pbkdf2PasswordHasher({ iterations: 1 }),
      accounts: { contactTo: 'operator@example.org', rateLimits: { contact: { limit: 1_000, windowMs: 3_600_000 } } },
    });
    const dropped = () => warnings.filter((w) => /dropped unsent/.test(w.message));
    try {
      const contact = (n: number) => call(service.api, 'POST', '/api/contact', { json: { name: 'Bo', email: `bo${n}@example.org`, message: 'Hello there, operator.' } });
      for (let n = 0; n < 3; n++) expect((await contact(n)).status).toBe(200);
      // The first drop is told at once (in a turn of the event loop), not an interval later.
      const deadline = Date.now() + 10_000;
      while (dropped().length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(dropped().map((w) => w.fields)).toEqual([{ dropped: { security: 0, unverified: 0, contact: 1 }, droppedSoFar: { security: 0, unverified: 0, contact: 1 } }]);
      for (let n = 3; n < 50; n++) expect((await contact(n)).status).toBe(200);
      expect(dropped()).toHaveLength(1);
    } finally {
      await service.close();
    }
    // The rest in one line, at the stop; the hook heard each one.
    expect(dropped().map((w) => w.fields)).toEqual([
      { dropped: { security: 0, unverified: 0, contact: 1 }, droppedSoFar: { security: 0, unverified: 0, contact: 1 } },
      { dropped: { security: 0, unverified: 0, contact: 47 }, droppedSoFar: { security: 0, unverified: 0, contact: 48 } },
    ]);
    expect(dropped()[1]!.message).toMatch(/^47 mails dropped unsent: the outbox is full/);
    expect(heard).toEqual(Array(48).fill('contact'));
  });
});
