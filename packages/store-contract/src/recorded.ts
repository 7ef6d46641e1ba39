/** A store that records which of its members a piece of work calls, for the cases that compare two runs. */
import type { Repositories, Store } from '@sl-accounts/service/core';

const REPOSITORIES = new Set<PropertyKey>(['users', 'sessions', 'oneTimeTokens', 'contacts', 'outbox']);

/** `repositories`, each call of a repository's method recorded as `<prefix><repository>.<method>`. */
function spied<R extends object>(repositories: R, prefix: string, calls: string[]): R {
  return new Proxy(repositories, {
    get(target, name, receiver) {
      const member: unknown = Reflect.get(target, name, receiver);
      if (!REPOSITORIES.has(name) || typeof member !== 'object' || member === null) return member;
      return new Proxy(member, {
        get(repository, method, r) {
          const fn: unknown = Reflect.get(repository, method, r);
          if (typeof fn !== 'function') return fn;
          return (...args: unknown[]) => {
            calls.push(`${prefix}${String(name)}.${String(method)}`);
            return (fn as (...a: unknown[]) => unknown).apply(repository, args);
          };
        },
      });
    },
  });
}

/** Runs `work` on `store` and answers its result with the repository calls and units of work it made, in order. */
export async function recorded<T>(store: Store, work: (store: Store) => Promise<T>): Promise<{ readonly result: T; readonly calls: readonly string[] }> {
  const calls: string[] = [];
  const outside = spied(store, '', calls);
  const watched = new Proxy(outside, {
    get(target, name, receiver) {
      if (name !== 'transaction') return Reflect.get(target, name, receiver);
      return <R>(unit: (tx: Repositories) => Promise<R>) => {
        calls.push('transaction');
        return store.transaction((tx) => unit(spied(tx, 'tx.', calls)));
      };
    },
  });
  const result = await work(watched);
  return { result, calls };
}
