/**
 * A script (`node test/support/webauthn-loads.ts`): records every module the process loads (a
 * module hook, registered before anything else is imported), composes a service without passkeys
 * (no `publicUrl`), signs up, logs in, reads `/api/me` and asks for passkey options (503), then one
 * with passkeys (`publicUrl`) and asks again (200). Prints, as one JSON object, each step's status
 * and the `@simplewebauthn/*` modules loaded by then. Run in a process of its own: the test
 * runner's process has loaded the library for other tests.
 */
import { registerHooks } from 'node:module';

const loaded = new Set<string>();
registerHooks({
  load(url, context, next) {
    loaded.add(url);
    return next(url, context);
  },
});
/** The `@simplewebauthn/*` modules loaded so far (their path under node_modules). */
const webauthnModules = () => [...loaded].flatMap((url) => /\/node_modules\/(@simplewebauthn\/.*)$/.exec(url)?.[1] ?? []);

const { createService } = await import('@sl-accounts/service');
const { createMemoryStore } = await import('@sl-accounts/store-memory');
const { request, testHasher } = await import('@sl-accounts/service/http/testing');
const mailer = { send: async () => {} };
const ada = { name: 'Ada', email: 'ada@example.com', password: 'correct horse battery' };
const passkeyOptions = (api: Parameters<typeof request>[0], origin: string) => request(api, 'POST /api/passkeys/sign-in-options', { headers: { host: new URL(origin).host, origin } });

const afterImport = webauthnModules();
const without = await createService({ store: createMemoryStore(), hasher: testHasher, mailer });
const signup = await request(without.api, 'POST /api/signup', { json: ada });
const login = await request(without.api, 'POST /api/login', { json: { email: ada.email, password: ada.password } });
const me = await request(without.api, 'GET /api/me', { cookie: login.cookies });
const refused = await passkeyOptions(without.api, 'http://localhost');
await without.close();
const withoutPasskeys = { statuses: [signup.status, login.status, me.status, refused.status], webauthn: webauthnModules() };

const withPasskeysService = await createService({ store: createMemoryStore(), hasher: testHasher, mailer, publicUrl: 'http://localhost:4300' });
const options = await passkeyOptions(withPasskeysService.api, 'http://localhost:4300');
await withPasskeysService.close();
const withPasskeys = { statuses: [options.status], webauthn: webauthnModules() };

process.stdout.write(JSON.stringify({ afterImport, withoutPasskeys, withPasskeys, modules: loaded.size }));
