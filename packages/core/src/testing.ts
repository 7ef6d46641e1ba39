/**
 * Fakes for tests of the core and of anything built on it (`@sl-accounts/core/testing`): not part of the
 * production surface.
 */
import type { Clock } from './ports.ts';

/** A clock that moves only when told to. */
export class ManualClock implements Clock {
  #t: number;

  constructor(start: Date | string = '2026-01-01T00:00:00Z') {
    this.#t = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.#t);
  }

  advance(ms: number): void {
    this.#t += ms;
  }
}
