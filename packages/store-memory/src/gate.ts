import { AsyncLocalStorage } from 'node:async_hooks';

/** The gate of the memory store whose unit of work the running code is inside, if any. */
const inside = new AsyncLocalStorage<Gate>();

/**
 * The memory store's isolation: one unit of work at a time (a promise chain in arrival order), and a
 * call outside any unit runs as one synchronous step between units, never inside one. So no call sees
 * what an unfinished unit wrote, and units are serialisable: the store needs no locks of its own, and
 * a compare-and-set is a comparison. A unit holds the store for no longer than its own steps take
 * (the core does nothing slow inside one), so this costs little.
 *
 * A call on the store itself from inside a unit of work would wait for that unit for ever (on
 * PGlite's one connection it does): the gate refuses it with an error instead, so every core test on
 * this store finds such a call.
 */
export class Gate {
  #tail: Promise<void> = Promise.resolve();
  /** Units of work and steps that hold the store or wait for it. */
  #queued = 0;

  /** Throws when the caller is inside one of this store's units of work. */
  check(what: string): void {
    if (this.#queued > 0 && inside.getStore() === this) {
      throw new Error(`${what} was called on the memory store from inside one of its units of work: use the unit's own repositories (tx)`);
    }
  }

  /** Runs `step` outside any unit of work: at once when none holds the store or waits for it, else after them. */
  step<T>(what: string, step: () => T): Promise<T> {
    if (this.#queued === 0) {
      try {
        return Promise.resolve(step());
      } catch (error) {
        return Promise.reject(error as Error);
      }
    }
    try {
      this.check(what);
    } catch (error) {
      return Promise.reject(error as Error);
    }
    return this.#exclusive(async () => step());
  }

  /** Runs `work` as a unit of work, when the units and steps before it are done. */
  unit<T>(work: () => Promise<T>): Promise<T> {
    if (inside.getStore() === this && this.#queued > 0) return Promise.reject(new Error('transaction was called inside a unit of work of the same memory store: units of work do not nest'));
    return this.#exclusive(() => inside.run(this, work));
  }

  async #exclusive<T>(run: () => Promise<T>): Promise<T> {
    this.#queued++;
    const before = this.#tail;
    let done!: () => void;
    this.#tail = new Promise<void>((resolve) => (done = resolve));
    try {
      await before;
      return await run();
    } finally {
      this.#queued--;
      done();
    }
  }
}
