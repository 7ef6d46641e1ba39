/**
 * What `pnpm start` (a real server process) checks before it listens, and says in one line when it
 * refuses (docs/decisions/0048-startup-checks.md): a SECRETS_KEY that does not open the stored TOTP
 * secrets, a data file that is a symbolic link, a data directory it cannot write.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { secretBox, secretContext } from '@sl-accounts/service/core';
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
describe('passkeys out of the box', { tags: ['process'] }, () => {
  const signInOptions = async (url: string) => {
    const res = await fetch(`${url}/api/passkeys/sign-in-options`, { method: 'POST', headers: { origin: url } });
    return { status: res.status, body: (await res.json()) as { options?: { rpId?: string } } };
  };

  it('a plain start (HOST 127.0.0.1, no PUBLIC_URL) prints http://localhost:<port> and uses it as the relying party (issue 39 row 11)', async () => {
    server = await spawnServer({ STORE: 'memory' });
    expect(server.url).toMatch(/^http:\/\/localhost:\d+$/);
    const answer = await signInOptions(server.url);
    expect(answer.status).toBe(200);
    expect(answer.body.options?.rpId).toBe('localhost');
    expect(server.output()).not.toContain('passkeys cannot work');
  });

  it('an IP address as PUBLIC_URL gets a start-up warning naming it and PUBLIC_URL', async () => {
    server = await spawnServer({ STORE: 'memory', PUBLIC_URL: 'http://127.0.0.1:4399' });
    const warning = server.output().split('\n').filter((line) => line.includes('passkeys cannot work'));
    expect(warning).toHaveLength(1);
    expect(JSON.parse(warning[0]!)).toMatchObject({ level: 40, msg: expect.stringMatching(/^passkeys cannot work at http:\/\/127\.0\.0\.1:4399: browsers refuse an IP address .*set PUBLIC_URL to a name/) });
  });
});

describe('the data directory', { tags: ['process'] }, () => {
  it('accounts.sqlite as a symbolic link is refused in one line naming it, its target left as it was (issue 39 row 10)', async () => {
    dir = await mkdtemp(join(tmpdir(), 'sl-start-'));
    const target = join(dir, 'elsewhere.txt');
    await writeFile(target, 'not a database', { mode: 0o644 });
    await mkdir(join(dir, 'data'));
    await symlink(target, join(dir, 'data', 'accounts.sqlite'));
    const run = await runToExit({ DATA_DIR: join(dir, 'data') });
    expect(run.code).toBe(1);
    expect(run.lines.filter((line) => line.startsWith('Failed to start'))).toEqual([`Failed to start: ${join(dir, 'data', 'accounts.sqlite')} is a symbolic link: the SQLite store opens a regular file only; point DATA_DIR (or SQLITE_PATH) at the file's real place`]);
    expect((await stat(target)).mode & 0o777).toBe(0o644);
    expect(await readFile(target, 'utf8')).toBe('not a database');
  });

  // Root writes anywhere it may: a path under a regular file is one that no one can create.
  for (const store of ['sqlite', 'pglite'] as const) {
    it(`that cannot be written says which directory and what to do, on ${store} (issue 40 row 8)`, { tags: store === 'pglite' ? ['database'] : [] }, async () => {
      dir = await mkdtemp(join(tmpdir(), 'sl-start-'));
      await writeFile(join(dir, 'a-file'), '');
      const dataDir = join(dir, 'a-file', 'data');
      const run = await runToExit({ STORE: store, DATA_DIR: dataDir });
      expect(run.code).toBe(1);
      const failed = run.lines.filter((line) => line.startsWith('Failed to start'));
      expect(failed).toHaveLength(1);
      expect(failed[0]).toContain(`cannot write the data directory ${dataDir} (ENOTDIR`);
      expect(failed[0]).toMatch(/make it a directory this user \(uid \d+\) can write, or set DATA_DIR/);
    });
  }
});
