/**
 * The hashing limit: PBKDF2-SHA256 hashes per second at the configured iterations with every core
 * busy (crypto.pbkdf2 on libuv's pool, more jobs in flight than threads). Prints one JSON line.
 */
import { pbkdf2, randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';

const iterations = Number(process.env.PBKDF2_ITERATIONS ?? 600_000);
const seconds = Number(process.env.SECONDS ?? 8);
const inFlight = 2 * Math.max(availableParallelism(), Number(process.env.UV_THREADPOOL_SIZE ?? 4));

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
console.log(JSON.stringify({ hashesPerSecond: done / ((performance.now() - start) / 1000), iterations, inFlight }));
