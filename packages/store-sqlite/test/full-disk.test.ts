/**
 * A full disk (issue 39 row 10; docs/decisions/0048-startup-checks.md), simulated with SQLite's own
 * `max_page_count` on the store's connection: writes answer 503 `store_unavailable` (not 500),
 * `/api/health` says 503 while it lasts and 200 once there is room again, and nothing acknowledged
 * before is lost.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { request, testHasher } from '@sl-accounts/service/http/testing';
import { createService, type Service } from '@sl-accounts/service';
import { openSQLite } from '../src/sqlite-store.ts';

let dir: string | undefined;
let service: Service | undefined;
afterEach(async () => {
  await service?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  service = dir = undefined;
});

it('on a full disk: writes answer 503 store_unavailable, health 503; with room again health is 200 and every acknowledged signup is there', async () => {
  dir = await mkdtemp(join(tmpdir(), 'sl-sqlite-full-'));
  const { store, file } = openSQLite({ dataDir: dir });
  service = await createService({ store, hasher: testHasher, mailer: { send: async () => {} }, linkBase: 'http://localhost', mcp: false });
  const signup = (n: number) =>
    request(service!.api, 'POST /api/signup', { json: { name: `User ${n}`, email: `user${n}@example.org`, password: 'correct horse battery' }, ip: `198.18.${n >> 8}.${n & 255}` });
  expect((await signup(0)).status).toBe(201);
  expect((await request(service.api, 'GET /api/health')).status).toBe(200);

  // The file may not grow any more: the disk is full from the next page on.
  const { page_count: pages } = file.prepare('PRAGMA page_count').get() as { page_count: number };
  file.exec(`PRAGMA max_page_count = ${pages}`);
  const acknowledged: number[] = [0];
  let refused: Awaited<ReturnType<typeof signup>> | undefined;
  for (let n = 1; n < 2_000 && !refused; n++) {
    const answer = await signup(n);
    if (answer.status === 201) acknowledged.push(n);
    else refused = answer;
  }
  expect(refused?.status).toBe(503);
  expect(refused?.json).toMatchObject({ ok: false, code: 'store_unavailable' });
  const health = await request(service.api, 'GET /api/health');
  expect(health.status).toBe(503);
  expect(health.json).toMatchObject({ ok: false, status: 'unavailable' });

  file.exec('PRAGMA max_page_count = 1073741823');
  expect((await request(service.api, 'GET /api/health')).status).toBe(200);
  for (const n of acknowledged) {
    const login = await request(service.api, 'POST /api/login', { json: { email: `user${n}@example.org`, password: 'correct horse battery' }, ip: `198.19.${n >> 8}.${n & 255}` });
    expect(login.status, `user${n}`).toBe(200);
  }
});
