/**
 * The hashing limit: PBKDF2-SHA256 hashes per second at the configured iterations with every core
 * busy (crypto.pbkdf2 on libuv's pool, more jobs in flight than threads). Prints one JSON line.
 *
 * It hashes the way the server does, so the login figure compares like with like: the same
 * iterations (PBKDF2_ITERATIONS), the same pool (libuv's, UV_THREADPOOL_SIZE threads) and the same
 * priority: the server runs its pool at nice 10 below the event loop (`deprioritizeThreadPool`,
 * serve.ts), so this does too. At nice 0 the limit took CPU from the other processes of a shared
 * machine that the server's niced hashing cannot, and the figure compared two different machines
 * (0.00 of a limit measured at load 20-28, 2026-12-06). bench.ts runs it with `pnpm start`'s node flags.
 */
import { pbkdf2, randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { deprioritizeThreadPool } from '@sl-accounts/service/http-node';

const iterations = Number(process.env.PBKDF2_ITERATIONS ?? 600_000);
const seconds = Number(process.env.SECONDS ?? 8);
const inFlight = 2 * Math.max(availableParallelism(), Number(process.env.UV_THREADPOOL_SIZE ?? 4));

// NICE=0: the old, unniced limit (for comparison).
const niced = process.env.NICE === '0' ? 0 : await deprioritizeThreadPool();
let done = 0;
let stop = false;
const start = performance.now();
const work = () =>
  new Promise<void>((resolve, reject) => {
    const next = () => {
      if (stop) return resolve();
      pbkdf2('benchmark password', randomBytes(16), iterations, 32, 'sha256', (err) => {
        if (err) return reject(err);
        done++;
        next();
      });
    };
    next();
  });
setTimeout(() => (stop = true), seconds * 1000);
await Promise.all(Array.from({ length: inFlight }, work));
console.log(JSON.stringify({ hashesPerSecond: done / ((performance.now() - start) / 1000), iterations, inFlight, nicedThreads: niced }));
