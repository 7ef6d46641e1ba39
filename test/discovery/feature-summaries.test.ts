/**
 * The short texts a reader (or an agent choosing a skill) sees first name every feature (issue 40,
 * row 9): the OpenAPI `info.summary`, the `accounts` tag's description and the account skill's
 * description mention the second factor (TOTP, recovery codes) and passkeys beside the rest.
 */
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '@sl-accounts/service/discovery';
import { exercisedRoutes } from '../support/error-code-exerciser.ts';

const FEATURES = [/two-factor|second factor/i, /TOTP|authenticator app/, /recovery codes/i, /passkey/i, /sessions/i, /password/i, /e-mail address/i];

describe('summaries name every feature', () => {
  const document = openApiDocument('http://localhost', 'sl-accounts');
  it.each(FEATURES)('info.summary and the accounts tag name %s', (feature) => {
    expect(document.info.summary).toMatch(feature);
    expect(document.tags.find((tag) => tag.name === 'accounts')?.description).toMatch(feature);
  });

  it('the account skill’s description names every feature', async () => {
    const { documents } = await exercisedRoutes();
    const description = /^description: (".*")$/m.exec(documents.skill)?.[1];
    for (const feature of FEATURES) expect(JSON.parse(description!)).toMatch(feature);
  }, 120_000);
});
