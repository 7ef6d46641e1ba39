/**
 * The store port is what someone writing a store reads first: every member of it, the repositories
 * and the mechanisms a store provides, says what it does in a doc comment of its own, and
 * docs/stores.md lists the port's members by role, as the code has them.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ts } from '../support/typescript.ts';
import { expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

/** The interfaces a store implements, and where they are declared. */
const PORT = {
  'packages/core/src/store.ts': ['Store', 'Repositories', 'UserRepository', 'SessionRepository', 'OneTimeTokenRepository', 'ContactRepository'],
  'packages/core/src/ports.ts': ['OutboxRepository', 'MailOutbox', 'RateLimiter', 'DeviceKeyStore', 'SessionRevocations'],
};

/** Each interface's members, and whether each has a doc comment: the files parsed once for every case. */
let parsed: Map<string, { readonly name: string; readonly documented: boolean; readonly method: boolean }[]> | undefined;
const members = () => (parsed ??= parseMembers());
function parseMembers(): Map<string, { readonly name: string; readonly documented: boolean; readonly method: boolean }[]> {
  const found = new Map<string, { name: string; documented: boolean; method: boolean }[]>();
  for (const [file, names] of Object.entries(PORT)) {
    const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
    for (const statement of source.statements) {
      if (!ts.isInterfaceDeclaration(statement) || !names.includes(statement.name.text)) continue;
      found.set(
        statement.name.text,
        statement.members.map((member) => ({
          name: member.name?.getText(source) ?? '(unnamed)',
          documented: ts.getJSDocCommentsAndTags(member).length > 0,
          method: ts.isMethodSignature(member),
        })),
      );
    }
  }
  return found;
}

it('declares every interface of the store port', () => {
  expect([...members().keys()].sort()).toEqual(Object.values(PORT).flat().sort());
});

it.each(Object.values(PORT).flat())('%s: every member says what it does in a doc comment', (name) => {
  const undocumented = members()
    .get(name)!
    .filter((m) => !m.documented)
    .map((m) => m.name);
  expect(undocumented).toEqual([]);
});

it('docs/stores.md counts the methods of each part of the port as the code has them', () => {
  const page = readFileSync(join(ROOT, 'docs/stores.md'), 'utf8');
  const all = members();
  // The methods a store writes, by the member of `Store` that holds them (`Store` itself: its own).
  const holders: Record<string, string> = { Store: 'Store', users: 'UserRepository', sessions: 'SessionRepository', oneTimeTokens: 'OneTimeTokenRepository', contacts: 'ContactRepository', rateLimiter: 'RateLimiter', deviceKeys: 'DeviceKeyStore', revocations: 'SessionRevocations' };
  for (const [member, iface] of Object.entries(holders)) {
    const count = all.get(iface)!.filter((m) => m.method).length;
    expect(page, `${member} (${iface})`).toMatch(new RegExp(`\\| \`${member}\` \\| ${count} \\|`));
  }
  const outbox = all.get('OutboxRepository')!.length + all.get('MailOutbox')!.filter((m) => m.method).length;
  expect(page).toMatch(new RegExp(`\\| \`outbox\` \\| ${outbox} \\|`));
});
