import type { RevocationListener, SessionRevocations } from './ports.ts';

/**
 * The revocation feed of a store that only this process writes (the memory store, embedded PGlite):
 * the store publishes each deletion as it makes it, so the feed is always caught up.
 */
export class InProcessRevocations implements SessionRevocations {
  readonly #listeners = new Set<RevocationListener>();

  subscribe(listener: RevocationListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Always 0: the store publishes each deletion before its call returns. */
  lagMs(): number {
    return 0;
  }

  /** Tells every listener; a listener that throws does not keep the others from hearing. */
  publish(digests: readonly string[] | 'all'): void {
    if (digests !== 'all' && digests.length === 0) return;
    for (const listener of this.#listeners) {
      try {
        listener.revoked(digests);
      } catch {
        // A listener's own failure is its own; the store's deletion has happened regardless.
      }
    }
  }
}
