/**
 * auth.md and the agent skills as an agent reads them, at the root and under a mount path: every
 * operation of the route table is in them, each with its body's fields (name, type, bounds, from
 * the zod schema the route names), its path parameters' examples and a curl command; every path
 * starts with the mount path; and the commands, run as written (with the token and the id put in),
 * take one account through its life. Asked in-process (`api.handle`).
 */
import { describe, expect, it } from 'vitest';
import { Secret, TOTP } from 'otpauth';
import { Pbkdf2PasswordHasher, createAccounts, developmentSecretBox, randomTokens, systemClock } from '@sl-accounts/service/core';
import { ManualClock } from '@sl-accounts/service/core/testing';
import { discoveryDocuments } from '@sl-accounts/service/discovery';
import { API_ROUTES, createHttpApi, isStreamBody, type ApiRoute, type HttpApi } from '@sl-accounts/service/http';
import { createService } from '@sl-accounts/service';
import { createMemoryStore } from '@sl-accounts/store-memory';
import { expectEveryPathUnder, expectFieldsOf, expectParametersOf, operationSections, sectionTitle } from '../support/agent-documents.ts';

const ORIGIN = 'http://accounts.test';

function compose(basePath: string): HttpApi {
  const accounts = createAccounts({ store: createMemoryStore(), hasher: new Pbkdf2PasswordHasher({ iterations: 1 }), clock: systemClock, tokens: randomTokens });
  return createHttpApi({ accounts, basePath, documents: discoveryDocuments({ basePath }) });
}

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | readonly string[]>;
  readonly text: string;
}

async function send(api: HttpApi, method: string, url: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  const answer = await api.handle({
    method,
    url,
    headers: { host: 'accounts.test', ...headers },
    remoteAddress: '192.0.2.7',
    body: body === undefined ? null : (async function* () {
      yield Buffer.from(body);
    })(),
  });
  const answered = answer.body;
  // `/mcp` may answer with a stream (an event stream): read it whole.
  const text = answered === null ? '' : typeof answered === 'string' ? answered : isStreamBody(answered) ? await new Response(answered).text() : Buffer.from(answered).toString('utf8');
  return { status: answer.status, headers: answer.headers as Answer['headers'], text };
}

/** A curl command of the documents, as this test's fetch sends it. */
interface Command {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

/** Reads the one curl command of a section: the form the documents write (`-X`, `-H '…'`, `-d '…'`). */
function commandOf(section: string): Command {
  const block = /```sh\n([\s\S]*?)\n```/.exec(section)?.[1];
  if (!block) throw new Error(`no curl command in\n${section}`);
  const line = block.replace(/ \\\n\s*/g, ' ');
  const [, method, url] = /^curl -i -X (\w+) "([^"]+)"/.exec(line)!;
  const headers = Object.fromEntries([...line.matchAll(/ -H '([^:]+): ([^']*)'/g)].map(([, name, value]) => [name!.toLowerCase(), value!]));
  const data = / -d '((?:[^']|'\\'')*)'/.exec(line)?.[1]?.replaceAll(`'\\''`, "'");
  return { method: method!, url: url!, headers, ...(data === undefined ? {} : { body: data }) };
}

const tokenFrom = (answer: Answer) => {
  const cookies = [answer.headers['set-cookie'] ?? []].flat();
  return /^sl_session=([^;]+)/.exec(cookies.find((c) => c.startsWith('sl_session=')) ?? '')?.[1];
};

/** auth.md and every skill the index lists, as served at `basePath`. */
async function documents(api: HttpApi, basePath: string) {
  const text = async (path: string) => {
    const answer = await send(api, 'GET', path);
    expect(answer.status, path).toBe(200);
    return answer.text;
  };
  const index = JSON.parse(await text(`${basePath}/.well-known/agent-skills/index.json`)) as { skills: { name: string; url: string }[] };
  const skills = new Map<string, string>();
  for (const skill of index.skills) {
    expect(skill.url.startsWith(`${ORIGIN}${basePath}/.well-known/agent-skills/`), skill.url).toBe(true);
    skills.set(skill.name, await text(skill.url.slice(ORIGIN.length)));
  }
  return { auth: await text(`${basePath}/auth.md`), skills };
}

describe('auth.md and the skills under the mount path /accounts', () => {
  it('write every path, prose included, under the mount path', async () => {
    const { auth, skills } = await documents(compose('/accounts'), '/accounts');
    expectEveryPathUnder(auth, '/accounts', 'auth.md');
    expect(skills.size).toBe(2);
    for (const [name, skill] of skills) expectEveryPathUnder(skill, '/accounts', name);
  });
});

describe.each(['', '/accounts'])('auth.md and the skills, mounted at "%s"', (basePath) => {
  const api = compose(basePath);

  /** The checks of one operation's section: its body's fields, or that it takes none, and its path parameters. */
  function expectOperation(route: ApiRoute, section: string, where: string) {
    if (route.requestBody) expectFieldsOf(route, section, where);
    else expect(section, `${where}: ${route.operationId}`).toContain('No request body.');
    expectParametersOf(route, section, where);
    const command = commandOf(section);
    expect(command.method).toBe(route.method);
    expect(command.url.endsWith(`${basePath}${route.path.replace(/\{(\w+)\}/g, '<$1>')}`), command.url).toBe(true);
  }

  it('auth.md has every operation of the route table once, with its fields, parameters and a command', async () => {
    const { auth } = await documents(api, basePath);
    const sections = operationSections(auth);
    expect([...sections.keys()].sort()).toEqual(API_ROUTES.map((route) => sectionTitle(route, basePath)).sort());
    for (const route of API_ROUTES) expectOperation(route, sections.get(sectionTitle(route, basePath))!, 'auth.md');
    // So that the loop above cannot pass by checking nothing: the bodies of POST /api/password and DELETE /api/me, by name.
    expect(sections.get(sectionTitle({ method: 'POST', path: '/api/password' }, basePath))).toMatch(/^\| `currentPassword` \| string \| yes \|/m);
    expect(sections.get(sectionTitle({ method: 'POST', path: '/api/password' }, basePath))).toMatch(/^\| `newPassword` \| string \| yes \| 8 to 200 characters \|/m);
    expect(sections.get(sectionTitle({ method: 'DELETE', path: '/api/me' }, basePath))).toMatch(/^\| `password` \| string \| yes \|/m);
  });

  it('the skills hold every operation of the route table once between them, each with its fields, parameters and a command', async () => {
    const { skills } = await documents(api, basePath);
    const seen = new Map<string, string>();
    for (const [name, skill] of skills) {
      for (const [title, section] of operationSections(skill)) {
        expect(seen.get(title), `${title} in ${name} and ${seen.get(title)}`).toBeUndefined();
        seen.set(title, name);
        const route = API_ROUTES.find((r) => sectionTitle(r, basePath) === title);
        expect(route, `${name}: ${title} is no route`).toBeDefined();
        expectOperation(route!, section, name);
      }
    }
    expect([...seen.keys()].sort()).toEqual(API_ROUTES.map((route) => sectionTitle(route, basePath)).sort());
    expect(seen.get(sectionTitle({ method: 'POST', path: '/api/contact' }, basePath))).toBe('send-contact-message');
    expect(seen.get(sectionTitle({ method: 'DELETE', path: '/api/me' }, basePath))).toBe('account-api');
  });

  it('its commands, run as written with the token and the id put in, take one account through its life', async () => {
    const { auth, skills } = await documents(api, basePath);
    for (const [where, document] of [['auth.md', auth], ['account-api', skills.get('account-api')!]] as const) {
      const fresh = compose(basePath);
      const sections = operationSections(document);
      const command = (method: ApiRoute['method'], path: string) => commandOf(sections.get(sectionTitle({ method, path }, basePath))!);
      // What the agent puts in for `<token>` and `<id>`, once it has them.
      const known: { token?: string; id?: string } = {};
      const run = async (method: ApiRoute['method'], path: string) => {
        const c = command(method, path);
        expect(c.url.startsWith(where === 'auth.md' ? `${ORIGIN}${basePath}/` : `$BASE${basePath}/`), c.url).toBe(true);
        const target = c.url.replace(/^(\$BASE|[a-z]+:\/\/[^/]+)/, '').replace('<id>', known.id ?? '<id>');
        const headers = Object.fromEntries(Object.entries(c.headers).map(([name, value]) => [name, value.replace('<token>', known.token ?? '<token>')]));
        return send(fresh, c.method, target, headers, c.body);
      };
      const signup = await run('POST', '/api/signup');
      expect(signup.status, `${where}: ${signup.text}`).toBe(201);
      const first = tokenFrom(signup)!;
      const login = await run('POST', '/api/login');
      expect(login.status, `${where}: ${login.text}`).toBe(200);
      known.token = tokenFrom(login)!;
      expect((await run('GET', '/api/me')).status).toBe(200);
      const listed = await run('GET', '/api/sessions');
      expect(listed.status).toBe(200);
      const sessions = (JSON.parse(listed.text) as { sessions: { id: string; current: boolean }[] }).sessions;
      expect(sessions).toHaveLength(2);
      // The signup's session, ended from the login's by its id.
      known.id = sessions.find((s) => !s.current)!.id;
      const ended = await run('DELETE', '/api/sessions/{id}');
      expect(ended.status, `${where}: ${ended.text}`).toBe(200);
      expect((await send(fresh, 'GET', `${basePath}/api/me`, { cookie: `sl_session=${first}` })).status).toBe(401);
      const changed = await run('POST', '/api/password');
      expect(changed.status, `${where}: ${changed.text}`).toBe(200);
      const deleted = await run('DELETE', '/api/me');
      expect(deleted.status, `${where}: ${deleted.text}`).toBe(200);
      expect((await run('GET', '/api/me')).status).toBe(401);
      expect((await run('POST', '/api/login')).status).toBe(401);
    }
  });
  it('an agent enrols TOTP and logs in with a code it computes from the secret, running the commands as written', async () => {
    const { auth, skills } = await documents(api, basePath);
    for (const [where, document] of [['auth.md', auth], ['account-api', skills.get('account-api')!]] as const) {
      // A manual clock, so that each code the agent computes falls in a step of its own.
      const clock = new ManualClock(new Date());
      const service = await createService({
        store: createMemoryStore(),
        hasher: new Pbkdf2PasswordHasher({ iterations: 1 }),
        clock,
        basePath,
        accounts: { secrets: developmentSecretBox() },
        mailer: { send: async () => {} },
        mail: { pollMs: 5 },
      });
      try {
        const sections = operationSections(document);
        const known: { token?: string; challenge?: string; code?: string } = {};
        /** The documented command, with only what the text says to replace put in: the session token, the challenge and the code. */
        const step = async (method: ApiRoute['method'], path: string) => {
          const c = commandOf(sections.get(sectionTitle({ method, path }, basePath))!);
          const target = c.url.replace(/^(\$BASE|[a-z]+:\/\/[^/]+)/, '');
          const headers = Object.fromEntries(
            Object.entries(c.headers).map(([name, value]) => [name, value.replace('<token>', known.token ?? '<token>').replace('<challenge>', known.challenge ?? '<challenge>')]),
          );
          const body = c.body?.replace('<6-digit code>', known.code ?? '');
          return send(service.api, c.method, target, headers, body);
        };
        const signup = await step('POST', '/api/signup');
        expect(signup.status, where).toBe(201);
        known.token = tokenFrom(signup);
        const started = await step('POST', '/api/two-factor/totp');
        expect(started.status, `${where}: ${started.text}`).toBe(200);
        const { secret } = JSON.parse(started.text) as { secret: string };
        // What the agent does with the secret: RFC 6238 with the parameters the text names.
        const code = () => TOTP.generate({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30, timestamp: clock.now().getTime() });
        known.code = code();
        const confirmed = await step('POST', '/api/two-factor/totp/confirm');
        expect(confirmed.status, `${where}: ${confirmed.text}`).toBe(200);
        expect((JSON.parse(confirmed.text) as { recoveryCodes: string[] }).recoveryCodes).toHaveLength(10);
        expect((await step('POST', '/api/logout')).status).toBe(200);
        const first = await step('POST', '/api/login');
        expect(first.status, `${where}: ${first.text}`).toBe(202);
        expect(tokenFrom(first)).toBeUndefined();
        known.challenge = /^sl_login=([^;]+)/.exec([first.headers['set-cookie'] ?? []].flat().find((c) => c.startsWith('sl_login=')) ?? '')?.[1];
        clock.advance(30_000);
        known.code = code();
        const second = await step('POST', '/api/login/second-factor');
        expect(second.status, `${where}: ${second.text}`).toBe(200);
        known.token = tokenFrom(second)!;
        expect((await step('GET', '/api/me')).status).toBe(200);
      } finally {
        await service.close();
      }
    }
  });

  it('the agent’s nine steps run literally, in order: signup, verify, me, rename, change password, sessions, change address, confirm, logout', async () => {
    const { auth, skills } = await documents(api, basePath);
    for (const [where, document] of [['auth.md', auth], ['account-api', skills.get('account-api')!]] as const) {
      const mails: { to: string; text: string }[] = [];
      const service = await createService({
        store: createMemoryStore(),
        hasher: new Pbkdf2PasswordHasher({ iterations: 1 }),
        basePath,
        mailer: { send: async (mail) => void mails.push(mail) },
        mail: { pollMs: 5 },
      });
      try {
        const sections = operationSections(document);
        const known: { token?: string; mailed?: string } = {};
        /** The documented command, with only what the text says to replace put in: the session token and the mailed token. */
        const step = async (method: ApiRoute['method'], path: string) => {
          const c = commandOf(sections.get(sectionTitle({ method, path }, basePath))!);
          const target = c.url.replace(/^(\$BASE|[a-z]+:\/\/[^/]+)/, '');
          const headers = Object.fromEntries(Object.entries(c.headers).map(([name, value]) => [name, value.replace('<token>', known.token ?? '<token>')]));
          const body = c.body?.replace('<the token from the link in the mail>', known.mailed ?? '');
          const answer = await send(service.api, c.method, target, headers, body);
          expect(answer.status, `${where}: ${method} ${path}: ${answer.text}`).toBeLessThan(300);
          return answer;
        };
        /** The token of the newest mail to `to` with a link, as the agent reads it from its inbox. */
        const mailedToken = async (to: string, count: number) => {
          const deadline = Date.now() + 10_000;
          while (mails.filter((m) => m.to === to && /token=/.test(m.text)).length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
          const link = /https?:\/\/\S+token=\S+/.exec(mails.filter((m) => m.to === to && /token=/.test(m.text)).at(-1)?.text ?? '')?.[0];
          return new URL(link!).searchParams.get('token')!;
        };
        const user = async () => (JSON.parse((await step('GET', '/api/me')).text) as { user: { name: string; email: string; emailVerified: boolean } }).user;

        known.token = tokenFrom(await step('POST', '/api/signup'));
        known.mailed = await mailedToken('ada@example.com', 1);
        await step('POST', '/api/email-verification/confirm');
        expect(await user()).toMatchObject({ email: 'ada@example.com', emailVerified: true });
        await step('PATCH', '/api/me');
        await step('POST', '/api/password');
        await step('GET', '/api/sessions');
        await step('POST', '/api/email');
        known.mailed = await mailedToken('ada.lovelace@example.org', 1);
        await step('POST', '/api/email-verification/confirm');
        // The change of address kept the session whose cookie came with the confirmation.
        expect(await user()).toMatchObject({ name: 'Augusta Ada King', email: 'ada.lovelace@example.org', emailVerified: true });
        await step('POST', '/api/logout');
      } finally {
        await service.close();
      }
    }
  });
});
