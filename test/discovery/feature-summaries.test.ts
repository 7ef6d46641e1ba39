/**
 * The short texts a reader (or an agent choosing a skill) sees first name every feature (issue 40,
 * row 9): the OpenAPI `info.summary`, the `accounts` tag's description and the account skill's
 * description mention the second factor (TOTP, recovery codes) and passkeys beside the rest.
 */
import { describe, expect, it } from 'vitest';
import { secretBox } from '@sl-accounts/service/core';
import { openApiDocument } from '@sl-accounts/service/discovery';
import { useFetchService } from '../support/fetch-service.ts';

const FEATURES = [/two-factor|second factor/i, /TOTP|authenticator app/, /recovery codes/i, /passkey/i, /sessions/i, /password/i, /e-mail address/i];

describe('summaries name every feature', () => {
  const document = openApiDocument('http://localhost', 'sl-accounts');
  it.each(FEATURES)('info.summary and the accounts tag name %s', (feature) => {
    expect(document.info.summary).toMatch(feature);
    expect(document.tags.find((tag) => tag.name === 'accounts')?.description).toMatch(feature);
  });

  const start = useFetchService();
  it('the account skill’s description names every feature', async () => {
    // The skill as a service with every feature configured serves it (the second factor's secrets included).
    const service = await start({ accounts: { secrets: secretBox(Buffer.alloc(32, 7)) } });
    const skill = await (await service.fetch(new Request('http://localhost/.well-known/agent-skills/account-api/SKILL.md'))).text();
    const description = /^description: (".*")$/m.exec(skill)?.[1];
    expect(description, skill.slice(0, 300)).toBeDefined();
    for (const feature of FEATURES) expect(JSON.parse(description!)).toMatch(feature);
  });
});
