/**
 * Exact interleavings for the race tests: the core's use cases over the memory store, behind a proxy
 * that pauses one call of a repository method (before it runs, or after it answered) until the test
 * lets it go, so "this request reads, that one commits, this one writes" happens in that order every run.
 */
import { URI, type TOTP } from 'otpauth';
import { cacheSessions, createAccounts, createAdmin, secretBox, type Accounts, type AccountsOptions } from '@sl-accounts/service/core';
import { ManualClock, testHasher } from '@sl-accounts/service/core/testing';
import { createMemoryStore } from '@sl-accounts/store-memory';

/** A one-shot rendezvous: `arrived` resolves when the paused call reaches it, `release()` lets it go on. */
export interface Pause {
  readonly arrived: Promise<void>;
  release(): void;
}

type Hook = { readonly when: 'before' | 'after'; readonly pause: Pause; readonly reached: () => void; readonly released: Promise<void> };

const WRAPPED = new Set(['users', 'sessions', 'identities', 'passkeys', 'totp', 'recoveryCodes', 'oneTimeTokens']);

/**
 * Wraps a store so that `pauseNext('users.findById')` pauses the next call of that method made
 * outside a unit of work, and `pauseNextInUnit('sessions.findWithUser')` the next one made inside one
 * (where a server store's units really run at once: test/postgres/ended-session-races.test.ts).
 */
export function pausable<S extends object>(store: S) {
  const outside = new Map<string, Hook[]>();
  const inUnits = new Map<string, Hook[]>();
  const wrappedRepos = new Map<string, unknown>();
  const calls: string[] = [];
  /** `repo`, whose calls wait where `hooks` holds a pause for them. */
  const wrapRepo = (name: string, repo: object, hooks: Map<string, Hook[]>) =>
    new Proxy(repo, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target) as unknown;
        if (typeof value !== 'function') return value;
        const key = `${name}.${String(prop)}`;
        return async (...args: unknown[]) => {
          if (hooks === outside) calls.push(key);
          const hook = hooks.get(key)?.shift();
          if (hook?.when === 'before') {
            hook.reached();
            await hook.released;
          }
          const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          if (hook?.when === 'after') {
            hook.reached();
            await hook.released;
          }
          return result;
        };
      },
    });
  const wrapUnit = (tx: object) =>
    new Proxy(tx, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof prop === 'string' && WRAPPED.has(prop) && value && typeof value === 'object' ? wrapRepo(prop, value, inUnits) : value;
      },
    });
  const proxied = new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof prop === 'string' && WRAPPED.has(prop) && value && typeof value === 'object') {
        if (!wrappedRepos.has(prop)) wrappedRepos.set(prop, wrapRepo(prop, value, outside));
        return wrappedRepos.get(prop);
      }
      // Units are wrapped only while a pause inside one is asked for: otherwise they run as the store runs them.
      if (prop === 'transaction' && [...inUnits.values()].some((hooks) => hooks.length > 0)) {
        return (work: (tx: object) => Promise<unknown>) => (value as (work: (tx: object) => Promise<unknown>) => Promise<unknown>).call(target, (tx: object) => work(wrapUnit(tx)));
      }
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  const pause = (hooks: Map<string, Hook[]>, method: string, when: 'before' | 'after'): Pause => {
    let reached!: () => void;
    let release!: () => void;
    const arrived = new Promise<void>((resolve) => (reached = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    const paused = { arrived, release };
    hooks.set(method, [...(hooks.get(method) ?? []), { when, pause: paused, reached, released }]);
    return paused;
  };
  return {
    store: proxied as S,
    calls,
    /** Pauses the next call of `method` (`repo.method`) outside a unit of work, before it runs or after it answered. */
    pauseNext: (method: string, when: 'before' | 'after' = 'before'): Pause => pause(outside, method, when),
    /** Pauses the next call of `method` inside a unit of work, after it answered (the unit still open) or before it runs. */
    pauseNextInUnit: (method: string, when: 'before' | 'after' = 'after'): Pause => pause(inUnits, method, when),
  };
}

export const SECRETS = secretBox(Buffer.alloc(32, 7));
export const ORIGIN = 'http://localhost';

/** A stand-in identity provider: `finish` answers whatever identity the test set last. */
export function stubProvider(id = 'idp') {
  let next: { issuer: string; subject: string; email: string | null; emailVerified: boolean; name: string | null } | null = null;
  return {
    provider: {
      id,
      name: 'IdP',
      kind: 'oidc' as const,
      async authorizationUrl(_redirectUri: string, checks: { state: string }) {
        const url = new URL('https://idp.example/authorize');
        url.searchParams.set('state', checks.state);
        return url;
      },
      async finish() {
        if (!next) throw new Error('no identity set');
        return next;
      },
    },
    willAnswer(identity: NonNullable<typeof next>) {
      next = identity;
    },
  };
}

let ipCounter = 0;
/** A fresh client address per request, so the per-client limits never get in the way. */
export const meta = (sessionToken?: string | null, extra: Record<string, unknown> = {}) => ({ clientIp: `198.18.${(++ipCounter >> 8) & 255}.${ipCounter & 255}`, userAgent: 'race-test', sessionToken: sessionToken ?? null, ...extra });

/** The world of one repro: a memory store (optionally with the session cache in front), the use cases and the operator's. */
export function world(options: { cache?: boolean; accounts?: AccountsOptions } = {}) {
  const memory = createMemoryStore();
  const paused = pausable(memory);
  const cache = options.cache ? cacheSessions(paused.store) : null;
  const store = cache ? cache.store : paused.store;
  const clock = new ManualClock();
  const idp = stubProvider();
  const ports = { store, hasher: testHasher, clock };
  const opts: AccountsOptions = { secrets: SECRETS, passkeyOrigin: ORIGIN, identityProviders: [idp.provider], securityNotices: false, ...options.accounts };
  const accounts: Accounts = createAccounts(ports, opts);
  const admin = createAdmin(ports, opts);
  return { memory, paused, cache, store, clock, idp, accounts, admin };
}

/** The TOTP app of an `otpauth://` URI, and its code at the clock's time. */
export function totpApp(otpauthUri: string, clock: ManualClock) {
  const app = URI.parse(otpauthUri) as TOTP;
  return { code: () => app.generate({ timestamp: clock.now().getTime() }) };
}

/** The error a promise rejected with (or `null` when it resolved), by its class name and message. */
export async function outcome<T>(promise: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: string }> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    return { ok: false, error: `${(error as Error).constructor.name}: ${(error as Error).message}` };
  }
}
