/**
 * Agent Skills discovery (index v0.2.0) and the SKILL.md files it lists. The files are rendered
 * once, at start-up, and the index carries the SHA-256 of exactly those bytes.
 */
import { createHash } from 'node:crypto';
import { RATE_LIMITS, SESSION_TTL_MS } from '@sl-accounts/service/core';
import { SESSION_COOKIE, type ApiRoute } from '@sl-accounts/service/http';
import { operationWriter, section, type Place } from './operation-text.ts';
import { describeDuration, describeLimit, inertUrl, splitBase } from './wording.ts';

export const SKILLS_SCHEMA = 'https://schemas.agentskills.io/discovery/0.2.0/schema.json';

export interface Skill {
  /** Lower-case letters, digits and single hyphens: the directory under /.well-known/agent-skills/. */
  readonly name: string;
  readonly description: string;
  /** The served SKILL.md bytes. */
  readonly body: Buffer;
  /** `sha256:<hex>` of `body`. */
  readonly digest: string;
}

function skill(name: string, description: string, instructions: string): Skill {
  // JSON strings are valid YAML double-quoted scalars.
  const text = `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\n\n${instructions}`;
  const body = Buffer.from(text, 'utf8');
  return { name, description, body, digest: `sha256:${createHash('sha256').update(body).digest('hex')}` };
}

/**
 * The skills. Without `publicUrl` the examples use `$BASE`, the origin that served the file, so the
 * bytes (and digests) never depend on the request. Every path starts with the mount path. The
 * contact skill holds the contact operations; the account skill every other operation of the route
 * table, each with its fields.
 */
export function createSkills(publicUrl: string | undefined, serviceName: string, basePath = ''): readonly Skill[] {
  const base = publicUrl ? inertUrl(publicUrl.replace(/\/+$/, '') + basePath) : `$BASE${inertUrl(basePath)}`;
  const { prefix } = publicUrl ? splitBase(base) : { prefix: inertUrl(basePath) };
  const place: Place = { url: base, prefix };
  const where = publicUrl
    ? `The API is at \`${base}\`${prefix ? `; every path below starts with its mount path \`${prefix}\`` : ''}.`
    : `In the examples, \`$BASE\` is the origin that served this file, e.g. \`BASE=https://accounts.example.com\`${prefix ? `; every path below starts with the service's mount path \`${prefix}\`` : ''}.`;
  const isContact = (route: ApiRoute) => route.tag === 'contact';

  const accountOps = operationWriter(place);
  const signup = accountOps.one('signup');
  const login = accountOps.one('login');
  const me = accountOps.one('getCurrentUser');
  const logout = accountOps.one('logout');
  const account = accountOps.rest((route) => route.tag === 'accounts');
  const others = accountOps.rest((route) => !isContact(route));

  const accountApi = skill(
    'account-api',
    `Create an account, log in (with a second factor: a TOTP code from an authenticator app, a recovery code or a passkey), sign in with a passkey, read the signed-in user and change its name, verify or change its e-mail address, log out, list and end sessions, change or reset the password, turn two-factor authentication on or off and renew recovery codes, add, rename and remove passkeys, and delete the account on the ${serviceName} JSON API, using its ${SESSION_COOKIE} session cookie. Use when acting as a registered user of this service.`,
    `# ${serviceName} account API

${where} Bodies are JSON. Authentication is the \`${SESSION_COOKIE}\` session cookie; there is no OAuth, no bearer token and no token endpoint. More: \`${base}/auth.md\`; the full contract: \`${base}/openapi.json\`. Replace the parts in angle brackets (\`<token>\`, \`<id>\`) as the text says.

## 1. Create an account

${signup}

\`409\`: the address is taken; log in instead.

## 2. Or log in

${login}

## 3. Use the session

Keep the token from \`Set-Cookie: ${SESSION_COOKIE}=<token>; …\` and send \`Cookie: ${SESSION_COOKIE}=<token>\`. Sessions last ${describeDuration(SESSION_TTL_MS)}; \`401\` means the session is missing or expired: log in again.

${me}

${logout}

${section('4. Sessions, password and account', `${account}\n\nThe examples follow one account: the password change takes the signup password to a new one, which the deletion then gives.`)}${section('5. Other operations', others)}## When things go wrong

- \`400\`: the body is invalid; \`issues\` names each bad field. An operation listed with no request body takes none.
- \`403\`: a wrong password (\`wrong_password\`) or code (\`wrong_code\`), a change that needs the second factor first (\`second_factor_required\`), or a browser request from another site's page (\`cross_site\`); each operation's answers above list the codes it may send.
- \`429\`: rate limited; wait \`Retry-After\` seconds.
- Errors look like \`{"ok":false,"error":"…","code":"…"}\`; branch on the status code and the stable \`code\` (\`wrong_password\`, \`cross_site\`, …), not the text.
`,
  );

  const contactOps = operationWriter(place);
  const contactMessage = contactOps.one('sendContactMessage');
  const moreContact = contactOps.rest(isContact);

  const contact = skill(
    'send-contact-message',
    `Send a message to the operators of ${serviceName} through its public contact endpoint; no account needed. Use when a user wants to reach the people running this service.`,
    `# Send a contact message

${where} No authentication is needed.

${section('Send the message', contactMessage)}${section('More', moreContact)}## Limits and errors

- ${describeLimit(RATE_LIMITS.contact)} per client IP; every attempt counts. Over the limit: \`429\` with \`Retry-After\` (seconds); do not retry sooner.
- \`400\`: a field is missing or out of bounds; \`issues\` names it.

The same operation is the \`send-contact-message\` tool of the MCP server at \`${base}/mcp\`.
`,
  );

  return [accountApi, contact];
}

/** The discovery index: one `skill-md` entry per skill, URLs absolute from `base`. */
export function skillsIndex(skills: readonly Skill[], base: string) {
  return {
    $schema: SKILLS_SCHEMA,
    skills: skills.map((s) => ({
      name: s.name,
      type: 'skill-md',
      description: s.description,
      url: `${base}/.well-known/agent-skills/${s.name}/SKILL.md`,
      digest: s.digest,
    })),
  };
}
