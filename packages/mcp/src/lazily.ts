/**
 * `load`, run once and shared by every caller while it runs and after it succeeds (concurrent first
 * requests wait for the same import); after a failure, the next caller runs it again.
 */
export function lazily<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () =>
    (pending ??= load().catch((error: unknown) => {
      pending = undefined;
      throw error;
    }));
}
