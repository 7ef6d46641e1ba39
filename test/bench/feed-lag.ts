/**
 * How far behind a store's revocation feed stays, as it reports itself (`lagMs()`), looked at every
 * 5 ms while a session cache would use it: the figure the session cache's 100 ms bound rests on.
 * Also how long the store's close() takes with the feed connected.
 */
import { createPostgresStore } from '@sl-accounts/store-postgres';

export interface FeedLag {
  /** Every lag sampled, in ms, sorted. */
  readonly lagsMs: readonly number[];
  /** How long close() took, in ms. */
  readonly closeMs: number;
}

/** Samples the feed of a store on `url` for `seconds` once it is caught up. */
export async function feedLag(url: string, seconds: number): Promise<FeedLag> {
  const store = createPostgresStore({ connectionString: url });
  try {
    store.revocations.subscribe({ revoked() {} });
    const deadline = performance.now() + 10_000;
    while (store.revocations.lagMs() === Number.POSITIVE_INFINITY) {
      if (performance.now() > deadline) throw new Error('the revocation feed did not catch up within 10 s');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const lagsMs: number[] = [];
    const end = performance.now() + seconds * 1000;
    while (performance.now() < end) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      lagsMs.push(store.revocations.lagMs());
    }
    lagsMs.sort((x, y) => x - y);
    const started = performance.now();
    await store.close();
    return { lagsMs, closeMs: performance.now() - started };
  } finally {
    await store.close().catch(() => {});
  }
}
