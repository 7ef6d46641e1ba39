/**
 * Revocation latency across two server processes on one Postgres database, both with the session
 * cache on: a session is made on A and answered by B (the second time from B's cache); then B is
 * asked for it in a tight loop, one request after another on one connection, while the session is
 * logged out on A. Each trial gives the time from A's logout answer to B's first 401, and how many
 * of B's answers to requests sent after A's logout answer still said 200 (a stale answer).
 */
import { RawClient } from './lib.ts';

export interface RevocationTrials {
  /** Milliseconds from A's logout answer to B's first 401, per trial (negative: B refused it first). */
  readonly latenciesMs: readonly number[];
  /** B's 200s to requests sent after A's logout answer, over all trials. */
  readonly staleAnswers: number;
  /** Trials in which B still answered 200 after `giveUpMs`. */
  readonly unrevoked: number;
}

/** Runs `trials` trials; `ipFor(n)` gives each login a client address of its own (behind TRUST_PROXY=1). */
export async function revocationTrials(a: string, b: string, trials: number, credentials: { email: string; password: string }, ipFor: (n: number) => string, giveUpMs = 2_000): Promise<RevocationTrials> {
  const onA = new RawClient(a);
  const onB = new RawClient(b);
  const poller = new RawClient(b);
  const latenciesMs: number[] = [];
  let staleAnswers = 0;
  let unrevoked = 0;
  try {
    for (let i = 0; i < trials; i++) {
      const login = await onA.request('POST', '/api/login', { 'content-type': 'application/json', 'x-forwarded-for': ipFor(i) }, JSON.stringify(credentials));
      if (login.status !== 200) throw new Error(`login on A answered ${login.status}: ${login.body}`);
      const token = /\r\nset-cookie: *sl_session=([^;]+)/i.exec(login.head)?.[1];
      if (!token) throw new Error('login on A set no session cookie');
      const cookie = { cookie: `sl_session=${token}` };
      for (let k = 0; k < 2; k++) {
        const seen = await onB.request('GET', '/api/me', cookie);
        if (seen.status !== 200) throw new Error(`B answered ${seen.status} before the logout`);
      }
      let loggedOutAt = Number.POSITIVE_INFINITY;
      let refusedAt: number | undefined;
      const polling = (async () => {
        const deadline = performance.now() + giveUpMs;
        while (performance.now() < deadline) {
          const sent = performance.now();
          const { status } = await poller.request('GET', '/api/me', cookie);
          if (status === 401) return void (refusedAt = performance.now());
          if (status !== 200) throw new Error(`B answered ${status}`);
          if (sent > loggedOutAt) staleAnswers++;
        }
      })();
      const logout = await onA.request('POST', '/api/logout', cookie);
      loggedOutAt = performance.now();
      if (logout.status !== 200) throw new Error(`logout on A answered ${logout.status}`);
      await polling;
      if (refusedAt === undefined) unrevoked++;
      else latenciesMs.push(refusedAt - loggedOutAt);
    }
  } finally {
    for (const client of [onA, onB, poller]) client.close();
  }
  return { latenciesMs, staleAnswers, unrevoked };
}
