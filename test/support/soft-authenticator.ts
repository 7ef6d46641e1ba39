/**
 * A passkey authenticator in software, for suites that drive the passkey ceremonies without a
 * browser (in-process, or through a proxy such as Prism): an ES256 key in memory, attestation
 * `none`, user present and verified, a counter that moves forward. It answers the options the service
 * gives exactly as `navigator.credentials.create()`/`get()` and their `toJSON()` would.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';
import type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();
/** Flags of the authenticator data: user present, user verified; attested credential data follows. */
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

export interface SoftPasskey {
  readonly id: string;
  readonly userHandle: string;
  readonly rpId: string;
  readonly privateKey: KeyObject;
  counter: number;
}

/** One authenticator for `origin` (what the browser would put in clientDataJSON). */
export function softAuthenticator(origin: string) {
  const clientData = (type: 'webauthn.create' | 'webauthn.get', challenge: string) => Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  const counterBytes = (counter: number) => {
    const bytes = Buffer.alloc(4);
    bytes.writeUInt32BE(counter);
    return bytes;
  };
  return {
    /** A new passkey answering registration options: the passkey, and the `RegistrationResponseJSON` to send. */
    register(options: PublicKeyCredentialCreationOptionsJSON): { passkey: SoftPasskey; response: RegistrationResponseJSON } {
      const rpId = options.rp.id!;
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const jwk = publicKey.export({ format: 'jwk' });
      const credentialId = randomBytes(16);
      // COSE_Key: kty EC2 (2), alg ES256 (-7), crv P-256 (1), x, y.
      const cose = isoCBOR.encode(new Map<number, number | Uint8Array>([[1, 2], [3, -7], [-1, 1], [-2, Buffer.from(jwk.x!, 'base64url')], [-3, Buffer.from(jwk.y!, 'base64url')]]));
      const length = Buffer.alloc(2);
      length.writeUInt16BE(credentialId.length);
      const authData = Buffer.concat([sha256(rpId), Buffer.from([UP | UV | AT]), counterBytes(0), Buffer.alloc(16), length, credentialId, cose]);
      const attestationObject = isoCBOR.encode(new Map<string, string | Map<string, string> | Uint8Array>([['fmt', 'none'], ['attStmt', new Map<string, string>()], ['authData', authData]]));
      const id = b64url(credentialId);
      const passkey: SoftPasskey = { id, userHandle: options.user.id, rpId, privateKey, counter: 0 };
      return {
        passkey,
        response: {
          id,
          rawId: id,
          type: 'public-key',
          response: { clientDataJSON: b64url(clientData('webauthn.create', options.challenge)), attestationObject: b64url(attestationObject), transports: ['internal'] },
          clientExtensionResults: {},
          authenticatorAttachment: 'platform',
        },
      };
    },
    /** An assertion of `passkey` answering sign-in (or step-up, or a login's second step) options. */
    assert(passkey: SoftPasskey, options: PublicKeyCredentialRequestOptionsJSON): AuthenticationResponseJSON {
      passkey.counter++;
      const authData = Buffer.concat([sha256(options.rpId ?? passkey.rpId), Buffer.from([UP | UV]), counterBytes(passkey.counter)]);
      const clientDataJSON = clientData('webauthn.get', options.challenge);
      // ES256 signatures are DER (node's default dsaEncoding), as WebAuthn wants them.
      const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), passkey.privateKey);
      return {
        id: passkey.id,
        rawId: passkey.id,
        type: 'public-key',
        response: { clientDataJSON: b64url(clientDataJSON), authenticatorData: b64url(authData), signature: b64url(signature), userHandle: passkey.userHandle },
        clientExtensionResults: {},
        authenticatorAttachment: 'platform',
      };
    },
  };
}
