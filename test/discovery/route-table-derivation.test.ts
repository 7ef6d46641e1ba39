/**
 * The documents follow the route table with no other edit: routes added to the table (EXTRA_ROUTES,
 * in a process of their own: test/support/extended-documents.ts) appear in the OpenAPI document
 * with their body schema, example and path parameters, and in auth.md and the skills with their
 * fields, under the mount path, as every route of the table does.
 */
// @module-tag process
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { API_ROUTES } from '@sl-accounts/service/http';
import { expectEveryPathUnder, expectFieldsOf, expectParametersOf, operationSections, sectionTitle } from '../support/agent-documents.ts';
import { EXTRA_ROUTES } from '../support/extra-routes.ts';

const SCRIPT = fileURLToPath(new URL('../support/extended-documents.ts', import.meta.url));

type Operation = {
  parameters?: { name: string; in: string; example?: unknown }[];
  requestBody?: { content: Record<string, { schema: { $ref: string }; example: unknown }> };
};
interface Output {
  readonly openapi: { tags: { name: string }[]; paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>>; required: string[] }> } };
  readonly auth: string;
  readonly skills: Record<string, string>;
}

describe('a route added to the route table', () => {
  let out: Output;
  beforeAll(async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [SCRIPT], { maxBuffer: 16 * 1024 * 1024 });
    out = JSON.parse(stdout) as Output;
  });

  it('is in the OpenAPI document with its body schema (its own id, or one made from the operation), example and path parameters', () => {
    const operation = (path: string, method: string) => out.openapi.paths[path]![method]!;
    const change = operation('/api/recovery-email', 'post').requestBody!.content['application/json']!;
    expect(change.schema).toEqual({ $ref: '#/components/schemas/RecoveryEmailRequest' });
    expect(change.example).toEqual(EXTRA_ROUTES[0]!.requestExample);
    expect(out.openapi.components.schemas.RecoveryEmailRequest).toMatchObject({
      properties: { newEmail: { type: 'string', format: 'email', maxLength: 200 }, password: { type: 'string', minLength: 1, maxLength: 200 } },
      required: ['newEmail', 'password'],
    });
    const profile = operation('/api/me/preferences', 'patch').requestBody!.content['application/json']!;
    expect(profile.schema).toEqual({ $ref: '#/components/schemas/UpdatePreferencesRequest' });
    expect(out.openapi.components.schemas.UpdatePreferencesRequest).toMatchObject({ properties: { name: { minLength: 2, maxLength: 120 } } });
    expect(operation('/api/invitations/{token}', 'post').parameters).toEqual([
      expect.objectContaining({ name: 'token', in: 'path', example: 'q8Vh2mZ0c4W1xYtN5bR7sK3eJ9uA6dL' }),
    ]);
    expect(out.openapi.tags.map((tag) => tag.name)).toEqual(['accounts', 'contact', 'system', 'profile']);
    // The table's own routes are all still there.
    for (const route of API_ROUTES) expect(operation(route.path, route.method.toLowerCase()), route.operationId).toBeDefined();
  });

  it('is in auth.md and in one skill, with its fields or path parameters, every path under the mount path', () => {
    const all = [...API_ROUTES, ...EXTRA_ROUTES];
    const titles = all.map((route) => sectionTitle(route, '/accounts')).sort();
    const auth = operationSections(out.auth);
    expect([...auth.keys()].sort()).toEqual(titles);
    const inSkills = new Map<string, string>();
    for (const skill of Object.values(out.skills)) for (const [title, section] of operationSections(skill)) inSkills.set(title, section);
    expect([...inSkills.keys()].sort()).toEqual(titles);
    for (const route of EXTRA_ROUTES) {
      for (const [where, section] of [['auth.md', auth.get(sectionTitle(route, '/accounts'))!], ['a skill', inSkills.get(sectionTitle(route, '/accounts'))!]] as const) {
        if (route.requestBody) expectFieldsOf(route, section, where);
        else expect(section).toContain('No request body.');
        expectParametersOf(route, section, where);
      }
    }
    // Fields that are not strings, and optional ones, by name.
    const profile = auth.get(sectionTitle({ method: 'PATCH', path: '/api/me/preferences' }, '/accounts'))!;
    expect(profile).toContain('| `name` | string | yes | 2 to 120 characters |');
    expect(profile).toContain('| `newsletter` | boolean | no | `true` or `false` |');
    expect(profile).toContain('| `locale` | string | no | one of `"en"`, `"fr"` |');
    expect(profile).toMatch(/^\| `age` \| integer \| no \| at least 13 \|/m);
    expectEveryPathUnder(out.auth, '/accounts', 'auth.md');
    for (const [name, skill] of Object.entries(out.skills)) expectEveryPathUnder(skill, '/accounts', name);
  });
});
