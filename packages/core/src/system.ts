import { hash, randomBytes } from 'node:crypto';
import type { Clock, TokenGenerator } from './ports.ts';

/** The system clock. */
export const systemClock: Clock = { now: () => new Date() };

/** 32 bytes from the CSPRNG, base64url: 43 URL-safe characters. */
export const randomTokens: TokenGenerator = { generate: () => randomBytes(32).toString('base64url') };

/**
 * The form in which a session token is stored and looked up: its SHA-256, hex. One-shot `hash`
 * (no Hash object per call), as every authenticated request computes it.
 */
export function digestToken(token: string): string {
  return hash('sha256', token, 'hex');
}
