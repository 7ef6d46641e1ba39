/**
 * Device proofs, after OWASP's device cookies: a client that signed in to an account (or completed
 * its reset) is given a proof bound to that account, and its later login attempts there are counted
 * against a limit of their own instead of the account's, so failures from everyone else cannot lock
 * the owner out.
 *
 * The account is its user id, which no other account ever gets, not its e-mail address: a proof of
 * a deleted account is worth nothing to a new account at the same address. A proof is
 * `<nonce>.<issued at, seconds>.<HMAC-SHA256 over user id, nonce and time>`, signed with
 * the one key every process on the store shares (DeviceKeyStore). Nothing is written per proof:
 * a login reads no table to check one, and no table grows with them. The core never sees how a
 * transport carries it. Signed with node:crypto's HMAC directly: the cookie-signing packages
 * (cookie-signature, keygrip) sign a value alone, and this needs the account it is bound to, which
 * the proof does not carry, and an issue time checked on the way in.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Clock, DeviceKeyStore, TokenGenerator } from './ports.ts';

/** How long a proof is honoured after it was issued; each sign-in issues a fresh one. */
export const DEVICE_PROOF_TTL_MS = 365 * 24 * 60 * 60 * 1000;

/** The policy name of a device's own failed-login limit in a request's `Quota`. */
export const DEVICE_LOGIN_POLICY = 'login-device';

/** A proof longer than this is not one of ours (nonce, time and MAC are ~100 characters). */
const MAX_PROOF_LENGTH = 200;
/** At most this many presented proofs are checked (each costs one HMAC). */
const MAX_PROOFS = 8;

/** A proof that a client signed in to an account, for the client to keep. */
export interface IssuedDeviceProof {
  /** Give it to the client; it is worth a login limit of its own for this account. */
  readonly proof: string;
  readonly maxAgeSeconds: number;
}

export interface DeviceProofs {
  /** A fresh proof that this client signed in to the account `userId`. */
  issue(userId: number): Promise<IssuedDeviceProof>;
  /**
   * The identity of the first presented proof that is genuine, unexpired and for the account
   * `userId`, or `null`: a stable string to key the device's own limit by. `userId` `null` (no such
   * account) checks every proof all the same, against an account no proof is issued for, so an
   * unknown address costs what a known one does.
   */
  verify(presented: string | readonly string[] | null | undefined, userId: number | null): Promise<string | null>;
}

/** What a proof is bound to: a user id, or for no account a value no proof is issued for. */
const boundTo = (userId: number | null) => (userId === null ? '' : String(userId));

export function createDeviceProofs(keys: DeviceKeyStore, tokens: TokenGenerator, clock: Clock): DeviceProofs {
  let key: Promise<string> | undefined;
  // Read once per process; a failed read is tried again at the next login.
  const signingKey = () =>
    (key ??= keys.getOrCreate(tokens.generate()).catch((error: unknown) => {
      key = undefined;
      throw error;
    }));
  // v2: bound to the user id (v1 proofs, bound to the e-mail address, are no longer honoured).
  const mac = (secret: string, account: string, nonce: string, issuedAt: string) =>
    createHmac('sha256', secret).update(`sl-device-v2\0${account}\0${nonce}\0${issuedAt}`).digest();

  function check(proof: string, account: string, secret: string, nowSeconds: number): string | null {
    if (proof.length > MAX_PROOF_LENGTH) return null;
    const [nonce, issuedAt, signature, extra] = proof.split('.');
    if (!nonce || !issuedAt || !signature || extra !== undefined || !/^\d{1,12}$/.test(issuedAt)) return null;
    const age = nowSeconds - Number(issuedAt);
    if (age < -60 || age * 1000 > DEVICE_PROOF_TTL_MS) return null;
    const expected = mac(secret, account, nonce, issuedAt);
    const given = Buffer.from(signature, 'base64url');
    return given.length === expected.length && timingSafeEqual(given, expected) ? nonce : null;
  }

  return {
    async issue(userId) {
      const nonce = tokens.generate();
      const issuedAt = String(Math.floor(clock.now().getTime() / 1000));
      const signature = mac(await signingKey(), boundTo(userId), nonce, issuedAt).toString('base64url');
      return { proof: `${nonce}.${issuedAt}.${signature}`, maxAgeSeconds: DEVICE_PROOF_TTL_MS / 1000 };
    },

    async verify(presented, userId) {
      if (!presented) return null;
      const secret = await signingKey();
      const nowSeconds = Math.floor(clock.now().getTime() / 1000);
      const account = boundTo(userId);
      if (typeof presented === 'string') return check(presented, account, secret, nowSeconds);
      for (const proof of presented.slice(0, MAX_PROOFS)) {
        const found = check(proof, account, secret, nowSeconds);
        if (found) return found;
      }
      return null;
    },
  };
}
