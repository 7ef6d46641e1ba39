/**
 * The WebAuthn options the passkey routes answer, as the JSON shapes of WebAuthn Level 3
 * (`PublicKeyCredentialCreationOptionsJSON`, `PublicKeyCredentialRequestOptionsJSON`, as
 * `@simplewebauthn/browser` types them), so a client generated from the OpenAPI document hands them to
 * `startRegistration`/`startAuthentication` (or `PublicKeyCredential.parse…FromJSON`) without a cast.
 * Closed objects with the fields WebAuthn names: a generated type then has no index signature, which
 * those libraries' interfaces would not accept.
 */
import { z } from 'zod';

const base64url = (description: string) => z.string().meta({ description: `${description} (base64url).` });
const TRANSPORTS = ['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb'] as const;
const HINTS = z.array(z.enum(['hybrid', 'security-key', 'client-device'])).meta({ description: 'Which kind of authenticator to offer first.' });
const USER_VERIFICATION = z.enum(['discouraged', 'preferred', 'required']);

/** A credential to exclude (registration) or allow (sign-in): `PublicKeyCredentialDescriptorJSON`. */
const CredentialDescriptor = z.object({
  id: base64url('A credential ID'),
  type: z.literal('public-key'),
  transports: z.array(z.enum(TRANSPORTS)).optional(),
});

/** The extensions the service asks for (WebAuthn's `AuthenticationExtensionsClientInputs`). */
const Extensions = z.object({ credProps: z.boolean().optional().meta({ description: 'Ask whether the credential is discoverable.' }) });

export const PasskeyCreationOptions = z
  .object({
    rp: z.object({ id: z.string().optional().meta({ description: 'The relying party ID: the service’s host name.' }), name: z.string() }),
    user: z.object({ id: base64url('The account’s user handle'), name: z.string(), displayName: z.string() }),
    challenge: base64url('It works once, within `timeout` milliseconds'),
    pubKeyCredParams: z.array(z.object({ alg: z.int().meta({ description: 'A COSE algorithm: -7 (ES256), -257 (RS256), …' }), type: z.literal('public-key') })),
    timeout: z.int().positive().optional(),
    excludeCredentials: z.array(CredentialDescriptor).optional().meta({ description: 'The account’s passkeys: an authenticator that holds one says so instead of adding another.' }),
    authenticatorSelection: z
      .object({
        authenticatorAttachment: z.enum(['cross-platform', 'platform']).optional(),
        requireResidentKey: z.boolean().optional(),
        residentKey: USER_VERIFICATION.optional(),
        userVerification: USER_VERIFICATION.optional(),
      })
      .optional(),
    hints: HINTS.optional(),
    attestation: z.enum(['direct', 'enterprise', 'indirect', 'none']).optional(),
    attestationFormats: z.array(z.enum(['fido-u2f', 'packed', 'android-safetynet', 'android-key', 'tpm', 'apple', 'none'])).optional(),
    extensions: Extensions.optional(),
  })
  .meta({
    description: 'WebAuthn’s creation options as JSON: give them to `startRegistration({ optionsJSON })` of `@simplewebauthn/browser`, or to `PublicKeyCredential.parseCreationOptionsFromJSON` and `navigator.credentials.create`.',
  });

export const PasskeyRequestOptions = z
  .object({
    challenge: base64url('It works once, within `timeout` milliseconds'),
    timeout: z.int().positive().optional(),
    rpId: z.string().optional().meta({ description: 'The relying party ID: the service’s host name.' }),
    allowCredentials: z.array(CredentialDescriptor).optional().meta({ description: 'The account’s passkeys (none for a sign-in with a discoverable passkey).' }),
    userVerification: USER_VERIFICATION.optional(),
    hints: HINTS.optional(),
    extensions: Extensions.optional(),
  })
  .meta({
    description: 'WebAuthn’s request options as JSON: give them to `startAuthentication({ optionsJSON })` of `@simplewebauthn/browser`, or to `PublicKeyCredential.parseRequestOptionsFromJSON` and `navigator.credentials.get`.',
  });
