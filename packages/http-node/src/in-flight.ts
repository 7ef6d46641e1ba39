/**
 * The responses a server is writing, for a stop to mark `Connection: close` on.
 *
 * Not a `Set`. V8 keeps a Set in a hash table that it rebuilds every few dozen additions when
 * entries come and go; once the Set is old, the new table is allocated in the old generation, and
 * the table it replaces keeps pointing at every entry it held then (for iterators, which follow the
 * tables' chain). Until the next full GC, each scavenge treats those stale pointers as roots: every
 * response that was in flight at a rebuild survives and is promoted, with its request, its headers
 * and its buffers. Under load on Postgres, where ~20 requests are always in flight, that was 1-2 KB
 * promoted per request (see test/bench/NOTES.md). Here a slot is cleared when its response
 * leaves, and the array only ever grows to the largest number in flight at once.
 */
export class InFlight<T extends object> {
  readonly #slots: (T | undefined)[] = [];
  readonly #free: number[] = [];

  /** Adds `item`; the function returned removes it again (once, however often it is called). */
  add(item: T): () => void {
    const slot = this.#free.pop() ?? this.#slots.length;
    this.#slots[slot] = item;
    let added = true;
    return () => {
      if (!added) return;
      added = false;
      this.#slots[slot] = undefined;
      this.#free.push(slot);
    };
  }

  /** Every item added and not removed. */
  *[Symbol.iterator](): IterableIterator<T> {
    for (const item of this.#slots) if (item !== undefined) yield item;
  }
}
