/**
 * A production server without PUBLIC_URL starts, and says once what that costs: mailed links at the
 * address it listens on, and documents rendered for each request's Host.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '@sl-accounts/server';
import { publicUrlWarning } from '../src/serve.ts';

const URL = 'http://0.0.0.0:3000';

describe('PUBLIC_URL at start', () => {
  it('unset in production: a warning naming the variable, where mailed links point and what the documents follow', () => {
    expect(publicUrlWarning(loadConfig({ NODE_ENV: 'production', BASE_PATH: '/accounts' }), URL)).toBe(
      "PUBLIC_URL is not set: mailed links point at http://0.0.0.0:3000/accounts, and the discovery documents follow each request's Host (each new one is rendered anew); set PUBLIC_URL to the address your users reach (e.g. https://accounts.example.org)",
    );
  });

  it('unset in production with RESET_URL and VERIFY_URL: the warning leaves the links out', () => {
    const warning = publicUrlWarning(loadConfig({ NODE_ENV: 'production', RESET_URL: 'https://app.example.org/reset', VERIFY_URL: 'https://app.example.org/verify' }), URL);
    expect(warning).toMatch(/^PUBLIC_URL is not set: the discovery documents follow each request's Host/);
  });

  it('set in production, or unset outside it: no warning', () => {
    expect(publicUrlWarning(loadConfig({ NODE_ENV: 'production', PUBLIC_URL: 'https://accounts.example.org' }), URL)).toBeUndefined();
    expect(publicUrlWarning(loadConfig({}), URL)).toBeUndefined();
  });
});
