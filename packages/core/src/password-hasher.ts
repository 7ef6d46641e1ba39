import { pbkdf2, randomBytes, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import type { PasswordHasher } from './ports.ts';

/** PBKDF2-HMAC-SHA256 of a password (already NFC) into `keyLength` bytes. */
export type Pbkdf2 = (password: string, salt: Buffer, iterations: number, keyLength: number) => Promise<Buffer>;

const pbkdf2Async = promisify(pbkdf2);
const nodePbkdf2: Pbkdf2 = (password, salt, iterations, keyLength) => pbkdf2Async(password, salt, iterations, keyLength, 'sha256');
/** Bytes of one PBKDF2-HMAC-SHA256 output block: each block costs the full iteration count. */
const BLOCK_BYTES = 32;

/** OWASP's 2023 recommendation for PBKDF2-HMAC-SHA256. */
export const DEFAULT_PBKDF2_ITERATIONS = 600_000;
const SALT_BYTES = 16;
const KEY_BYTES = 32;
const ID = 'pbkdf2-sha256';

interface ParsedHash {
  readonly iterations: number;
  readonly salt: Buffer;
  readonly key: Buffer;
}

const B64 = /^[A-Za-z0-9+/]+$/;

/** Parses `$pbkdf2-sha256$i=<iterations>$<salt>$<hash>` (standard base64, no padding); `null` if malformed. */
export function parsePbkdf2Hash(phc: string): ParsedHash | null {
  const parts = phc.split('$');
  if (parts.length !== 5 || parts[0] !== '' || parts[1] !== ID) return null;
  const [, , params = '', salt = '', key = ''] = parts;
  const match = /^i=([1-9][0-9]{0,8})$/.exec(params);
  if (!match || !B64.test(salt) || !B64.test(key)) return null;
  const parsed = { iterations: Number(match[1]), salt: Buffer.from(salt, 'base64'), key: Buffer.from(key, 'base64') };
  return parsed.salt.length > 0 && parsed.key.length > 0 ? parsed : null;
}

function format(iterations: number, salt: Buffer, key: Buffer): string {
  const b64 = (b: Buffer) => b.toString('base64').replace(/=+$/, '');
  return `$${ID}$i=${iterations}$${b64(salt)}$${b64(key)}`;
}

/**
 * PBKDF2-HMAC-SHA256 in PHC string format. Always the async `crypto.pbkdf2`, which runs on libuv's
 * thread pool, so hashing never blocks the event loop.
 */
export class Pbkdf2PasswordHasher implements PasswordHasher {
  readonly iterations: number;
  /** Random salt and key at the configured cost: verifying against it costs a real verification. */
  private readonly dummy: ParsedHash;
  private readonly pbkdf2: Pbkdf2;

  /** `pbkdf2` replaces node's `crypto.pbkdf2` (tests count the work done with it). */
  constructor(options: { readonly iterations?: number; readonly pbkdf2?: Pbkdf2 } = {}) {
    const iterations = options.iterations ?? DEFAULT_PBKDF2_ITERATIONS;
    if (!Number.isSafeInteger(iterations) || iterations < 1) throw new RangeError('iterations must be a positive integer');
    this.iterations = iterations;
    this.pbkdf2 = options.pbkdf2 ?? nodePbkdf2;
    this.dummy = { iterations, salt: randomBytes(SALT_BYTES), key: randomBytes(KEY_BYTES) };
  }

  async hash(password: string): Promise<string> {
    const salt = randomBytes(SALT_BYTES);
    const key = await this.pbkdf2(password.normalize('NFC'), salt, this.iterations, KEY_BYTES);
    return format(this.iterations, salt, key);
  }

  /**
   * Costs at least the configured work factor whatever the stored hash: a hash made with fewer
   * iterations is padded with the difference, and a malformed one costs a full dummy verification.
   * Otherwise a wrong password would answer faster for accounts whose hash is not upgraded yet,
   * and anyone could list them.
   */
  async verify(password: string, phc: string): Promise<boolean> {
    const parsed = parsePbkdf2Hash(phc);
    if (!parsed) {
      await this.verifyDummy(password);
      return false;
    }
    const matches = await this.check(password, parsed);
    const missing = this.iterations - parsed.iterations * Math.ceil(parsed.key.length / BLOCK_BYTES);
    if (missing > 0) await this.pbkdf2(password.normalize('NFC'), this.dummy.salt, missing, BLOCK_BYTES);
    return matches;
  }

  needsRehash(phc: string): boolean {
    const parsed = parsePbkdf2Hash(phc);
    return !parsed || parsed.iterations < this.iterations || parsed.salt.length < SALT_BYTES || parsed.key.length !== KEY_BYTES;
  }

  async verifyDummy(password: string): Promise<void> {
    await this.check(password, this.dummy);
  }

  private async check(password: string, { iterations, salt, key }: ParsedHash): Promise<boolean> {
    const derived = await this.pbkdf2(password.normalize('NFC'), salt, iterations, key.length);
    return timingSafeEqual(derived, key);
  }
}
