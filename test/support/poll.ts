/**
 * Asks until `check` passes or `ms` have passed; returns the last answer. The pauses between asks
 * start at 5 ms and double up to 100 ms: what is ready at once (mail sent in-process, a row
 * written) is seen within milliseconds, and what takes long is asked about ten times a second.
 */
export async function poll<T>(ask: () => Promise<T>, check: (value: T) => boolean, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
    const value = await ask();
    if (check(value) || Date.now() >= deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}
