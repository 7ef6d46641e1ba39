/**
 * Pay for what you use (issue 41): `@simplewebauthn/server` is loaded at the first passkey
 * ceremony (packages/core/src/use-cases/webauthn.ts), so a service without passkeys never imports
 * it, through its import, a signup, a login, `/api/me` and a refused passkey request. In a process
 * of its own (test/support/webauthn-loads.ts), whose module hook sees every module loaded; the
 * service with passkeys then loads the library, which shows the hook would have seen it.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../../test/support/webauthn-loads.ts', import.meta.url));

interface Output {
  readonly afterImport: readonly string[];
  readonly withoutPasskeys: { readonly statuses: readonly number[]; readonly webauthn: readonly string[] };
  readonly withPasskeys: { readonly statuses: readonly number[]; readonly webauthn: readonly string[] };
}

it('a service without passkeys does not load @simplewebauthn/server; the first passkey ceremony does', { tags: ['process'], timeout: 60_000 }, async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [SCRIPT], { maxBuffer: 16 * 1024 * 1024 });
  const out = JSON.parse(stdout) as Output;
  expect(out.afterImport).toEqual([]);
  // signup 201, login 200, /api/me 200, passkey options 503 (no relying party).
  expect(out.withoutPasskeys.statuses).toEqual([201, 200, 200, 503]);
  expect(out.withoutPasskeys.webauthn).toEqual([]);
  expect(out.withPasskeys.statuses).toEqual([200]);
  expect(out.withPasskeys.webauthn).toContain('@simplewebauthn/server/esm/index.js');
});
