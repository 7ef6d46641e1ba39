/** Asks until `check` passes or `ms` have passed; returns the last answer. */
export async function poll<T>(ask: () => Promise<T>, check: (value: T) => boolean, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await ask();
    if (check(value) || Date.now() >= deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
