/**
 * /.well-known/agent-skills/index.json (Agent Skills discovery v0.2.0) and the SKILL.md files it
 * lists: digests are recomputed from the bytes actually fetched.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { RunningServer } from '@sl-accounts/server';
import { HOST_KINDS, startTestServer } from '../support/server.ts';

describe.each(HOST_KINDS)('agent skills on the %s host', (host) => {
  const SCHEMA_URL = 'https://schemas.agentskills.io/discovery/0.2.0/schema.json';

  /** The index format: `$schema` and `skills[]` of `skill-md` entries with a SHA-256 digest. */
  const INDEX = {
    type: 'object',
    required: ['$schema', 'skills'],
    properties: {
      $schema: { const: SCHEMA_URL },
      skills: {
        type: 'array',
        minItems: 1,
        items: {
          type: 'object',
          required: ['name', 'type', 'description', 'url', 'digest'],
          properties: {
            name: { type: 'string', pattern: '^[a-z0-9]+(-[a-z0-9]+)*$', maxLength: 64 },
            type: { enum: ['skill-md', 'archive'] },
            description: { type: 'string', minLength: 1, maxLength: 1024 },
            url: { type: 'string', format: 'uri' },
            digest: { type: 'string', pattern: '^sha256:[0-9a-f]{64}$' },
          },
        },
      },
    },
  };

  const ajv = new Ajv2020({ allErrors: true });
  addFormats.default(ajv);
  const validIndex = ajv.compile(INDEX);

  type Index = { $schema: string; skills: { name: string; type: string; description: string; url: string; digest: string }[] };

  /** The YAML front matter's `name` and `description` (plain or double-quoted scalars). */
  function frontMatter(text: string): Record<string, string> {
    const match = /^---\n([\s\S]*?)\n---\n/.exec(text);
    if (!match) throw new Error('no YAML front matter');
    const fields: Record<string, string> = {};
    for (const line of match[1]!.split('\n')) {
      const [, key, value] = /^([a-z-]+):\s*(.*)$/.exec(line) ?? [];
      if (key) fields[key] = value!.startsWith('"') ? (JSON.parse(value!) as string) : value!;
    }
    return fields;
  }

  let server: RunningServer;
  let res: Response;
  let index: Index;
  beforeAll(async () => {
    server = await startTestServer({ host });
    res = await fetch(`${server.url}/.well-known/agent-skills/index.json`);
    index = (await res.json()) as Index;
  });
  afterAll(() => server.close());

  describe('/.well-known/agent-skills/index.json', () => {
    it('is a v0.2.0 discovery index', () => {
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(validIndex(index), ajv.errorsText(validIndex.errors)).toBe(true);
      expect(index.skills.map((s) => s.name).sort()).toEqual(['account-api', 'send-contact-message']);
      for (const skill of index.skills) {
        expect(skill.type).toBe('skill-md');
        expect(skill.url).toBe(`${server.url}/.well-known/agent-skills/${skill.name}/SKILL.md`);
      }
    });

    it('lists SKILL.md files whose served bytes match the digests and whose front matter matches the entries', async () => {
      for (const skill of index.skills) {
        const file = await fetch(skill.url);
        expect(file.status).toBe(200);
        expect(file.headers.get('content-type')).toMatch(/^text\/markdown/);
        const bytes = Buffer.from(await file.arrayBuffer());
        expect(`sha256:${createHash('sha256').update(bytes).digest('hex')}`).toBe(skill.digest);
        const fields = frontMatter(bytes.toString('utf8'));
        expect(fields.name).toBe(skill.name);
        expect(fields.description).toBe(skill.description);
      }
    });

    it('keeps the digests when the request comes from another origin', async () => {
      const again = (await (await fetch(`${server.url.replace('127.0.0.1', 'localhost')}/.well-known/agent-skills/index.json`)).json()) as Index;
      expect(again.skills.map((s) => s.digest)).toEqual(index.skills.map((s) => s.digest));
    });

    it('describes the account API and the contact message', async () => {
      const text = async (name: string) => (await fetch(`${server.url}/.well-known/agent-skills/${name}/SKILL.md`)).text();
      const account = await text('account-api');
      for (const path of ['/api/signup', '/api/login', '/api/me', '/api/logout']) expect(account).toContain(path);
      expect(account).toContain('sl_session');
      const contact = await text('send-contact-message');
      expect(contact).toContain('/api/contact');
      expect(contact).toContain('5 requests per hour');
      // Its description says what it is for: the address and the name among the rest (issue 32).
      const { description } = index.skills.find((s) => s.name === 'account-api')!;
      for (const word of [/verify/, /e-mail address/, /name/, /sessions/, /password/, /delete/]) expect(description, String(word)).toMatch(word);
    });
  });
});
