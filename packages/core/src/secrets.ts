/**
 * Secrets at rest (docs/decisions/0044-step-up-and-secrets-at-rest.md): a TOTP secret must be read
 * back to check a code, so it cannot be a digest; it is sealed with AES-256-GCM (node:crypto, no
 * hand-written cipher) under `SECRETS_KEY`, 32 random bytes the operator keeps apart from the
 * database. A database dump alone then gives no one the codes. The account id is the additional
 * authenticated data: a sealed secret copied onto another account's row does not open.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** Seals and opens the secrets stored for an account. */
export interface SecretBox {
  /** Whether the key is the development stand-in (`developmentSecretBox`), never for production. */
  readonly development: boolean;
  /** `v1.<iv>.<ciphertext and tag>` (base64url), bound to `context` (the account). */
  seal(secret: string, context: string): string;
  /** The secret `seal` sealed under this key and `context`; throws when the box was changed, or sealed under another key or context. */
  open(sealed: string, context: string): string;
}

/** A key that is not 32 bytes of base64, as SECRETS_KEY must be. */
export class InvalidSecretsKey extends RangeError {
  constructor() {
    super('SECRETS_KEY must be 32 bytes, base64-encoded (e.g. `openssl rand -base64 32`)');
    this.name = 'InvalidSecretsKey';
  }
}

const VERSION = 'v1';
const IV_BYTES = 12;

/** A box under `key` (32 bytes, or their base64 as SECRETS_KEY holds them). Throws InvalidSecretsKey. */
export function secretBox(key: string | Uint8Array, development = false): SecretBox {
  const bytes = typeof key === 'string' ? Buffer.from(key, 'base64') : Buffer.from(key);
  if (bytes.length !== 32) throw new InvalidSecretsKey();
  return {
    development,
    seal(secret, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', bytes, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return `${VERSION}.${iv.toString('base64url')}.${sealed.toString('base64url')}`;
    },
    open(sealed, context) {
      const [version, iv, body] = sealed.split('.');
      if (version !== VERSION || !iv || !body) throw new Error('not a sealed secret');
      const data = Buffer.from(body, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', bytes, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(data.subarray(data.length - 16));
      return Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]).toString('utf8');
    },
  };
}

/**
 * The box where no SECRETS_KEY is configured outside production: a fixed key derived from a public
 * string, so a development database keeps working across restarts. It protects nothing (the key is
 * in this source); the server logs a warning, and refuses it in production.
 */
export function developmentSecretBox(): SecretBox {
  return secretBox(createHash('sha256').update('sl-accounts development SECRETS_KEY: not secret').digest(), true);
}
