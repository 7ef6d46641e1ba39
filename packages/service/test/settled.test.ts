/**
 * Mail in an embedder's unit tests without waiting (issue 40, row 4): `request` of the testing entry
 * answers once the mail its request caused is with the mailer, with no poll interval set, the reset
 * mail (written after the answer) included; with requests side by side, each finds its own mail
 * there, and no mail goes twice (the flush and the outbox's own poll share one claim).
 */
import { expect, it } from 'vitest';
import type { Mailer } from '@sl-accounts/service/core';
import { request, testHasher } from '@sl-accounts/service/http/testing';
import { createService } from '@sl-accounts/service';
import { createMemoryStore } from '@sl-accounts/store-memory';

type Sent = Parameters<Mailer['send']>[0];

async function composed() {
  const sent: Sent[] = [];
  const service = await createService({ store: createMemoryStore(), hasher: testHasher, mailer: { send: async (mail) => void sent.push(mail) } });
  return { sent, service };
}

it('the mail a request caused is with the mailer when request answers: signup, then a reset request', async () => {
  const { sent, service } = await composed();
  try {
    const ada = { name: 'Ada', email: 'ada@example.com', password: 'correct horse' };
    expect((await request(service.api, 'POST /api/signup', { json: ada })).status).toBe(201);
    expect(sent.map((mail) => mail.to)).toEqual([ada.email]);
    expect((await request(service.api, 'POST /api/password-reset', { json: { email: ada.email } })).status).toBe(202);
    expect(sent.map((mail) => mail.to)).toEqual([ada.email, ada.email]);
    expect(sent[1]!.text).toMatch(/reset-password\?token=/);
  } finally {
    await service.close();
  }
});

it('20 signups side by side: each finds its own mail when it answers, and every mail went once', async () => {
  const { sent, service } = await composed();
  try {
    const emails = Array.from({ length: 20 }, (_, i) => `user${i}@example.com`);
    await Promise.all(
      emails.map(async (email, i) => {
        const answer = await request(service.api, 'POST /api/signup', { json: { name: `User ${i}`, email, password: 'correct horse' }, ip: `192.0.2.${i + 1}` });
        expect(answer.status).toBe(201);
        expect(sent.some((mail) => mail.to === email)).toBe(true);
      }),
    );
    expect(sent.map((mail) => mail.to).sort()).toEqual([...emails].sort());
    expect(new Set(sent.map((mail) => mail.messageId)).size).toBe(20);
  } finally {
    await service.close();
  }
});
