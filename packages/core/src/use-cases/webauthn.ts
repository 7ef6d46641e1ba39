/**
 * `@simplewebauthn/server`, loaded at its first use: a service whose accounts never use a passkey
 * never imports it (about 25 packages and a fifth of the service's import time, issue 41). The
 * passkey use cases call these as they would the library's own functions; the first call imports
 * the library once, and every later one awaits the same import. Its types are imported as types.
 */
import type * as WebAuthn from '@simplewebauthn/server';
import type { ClientDataJSON } from '@simplewebauthn/server/helpers';

export type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';

let loading: Promise<typeof WebAuthn> | undefined;

/** The library, imported on the first call (a failed import is tried again on the next). */
function library(): Promise<typeof WebAuthn> {
  loading ??= import('@simplewebauthn/server').catch((err: unknown) => {
    loading = undefined;
    throw err;
  });
  return loading;
}

export const generateRegistrationOptions: typeof WebAuthn.generateRegistrationOptions = async (options) => (await library()).generateRegistrationOptions(options);

export const verifyRegistrationResponse: typeof WebAuthn.verifyRegistrationResponse = async (options) => (await library()).verifyRegistrationResponse(options);

export const generateAuthenticationOptions: typeof WebAuthn.generateAuthenticationOptions = async (options) => (await library()).generateAuthenticationOptions(options);

export const verifyAuthenticationResponse: typeof WebAuthn.verifyAuthenticationResponse = async (options) => (await library()).verifyAuthenticationResponse(options);

/**
 * The client data an authenticator's answer carries (base64url JSON), decoded as the library's
 * `decodeClientDataJSON` of `@simplewebauthn/server/helpers` does (base64url to UTF-8, then JSON),
 * here by hand because it must be synchronous and that entry loads the whole library with it. It
 * only picks out the challenge to look up: the library decodes and checks the client data again
 * (type, challenge, origin) when it verifies the answer. Throws on what is not base64url JSON.
 */
export function decodeClientDataJSON(data: string): ClientDataJSON {
  return JSON.parse(Buffer.from(data, 'base64url').toString('utf8')) as ClientDataJSON;
}
