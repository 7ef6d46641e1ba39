/**
 * Preloaded into the server by `soak.ts` (`--import`): every second, one `PROBE {...}` line on
 * standard error with the process's memory (RSS, V8 heap and its spaces, external memory), the
 * garbage collections since the last line, by kind, with their pause time, and the asynchronous
 * writes to standard output (the log): how many, their bytes, and how long they were in flight.
 * It only watches: `fs.write` is wrapped to time the log's writes, and passes everything on.
 */
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import { PerformanceObserver, constants, type PerformanceEntry } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';

const KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

let gcs: Record<string, { count: number; ms: number }> = {};
new PerformanceObserver((list) => {
  for (const entry of list.getEntries() as (PerformanceEntry & { detail?: { kind?: number } })[]) {
    const kind = KINDS[entry.detail?.kind ?? 0] ?? 'other';
    const seen = (gcs[kind] ??= { count: 0, ms: 0 });
    seen.count++;
    seen.ms += entry.duration;
  }
}).observe({ entryTypes: ['gc'] });

let writes = { count: 0, bytes: 0, maxBytes: 0, ms: 0 };
const write = fs.write;
fs.write = function (this: unknown, fd: number, data: unknown, ...rest: unknown[]) {
  const callback = rest.at(-1);
  if (fd !== 1 || typeof callback !== 'function') return (write as (...args: unknown[]) => void).call(this, fd, data, ...rest);
  const bytes = typeof data === 'string' ? Buffer.byteLength(data) : (data as Uint8Array).byteLength;
  const start = performance.now();
  writes.count++;
  writes.bytes += bytes;
  writes.maxBytes = Math.max(writes.maxBytes, bytes);
  return (write as (...args: unknown[]) => void).call(this, fd, data, ...rest.slice(0, -1), (...results: unknown[]) => {
    writes.ms += performance.now() - start;
    (callback as (...args: unknown[]) => void)(...results);
  });
} as typeof fs.write;

const MiB = 1024 * 1024;
const mib = (bytes: number) => Math.round((bytes / MiB) * 10) / 10;

setInterval(() => {
  const { rss, heapTotal, heapUsed, external, arrayBuffers } = process.memoryUsage();
  const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name.replace(/_space$/, ''), { size: mib(s.space_size), used: mib(s.space_used_size) }]));
  process.stderr.write(`PROBE ${JSON.stringify({ rss: mib(rss), heapTotal: mib(heapTotal), heapUsed: mib(heapUsed), external: mib(external), arrayBuffers: mib(arrayBuffers), spaces, gcs, writes })}\n`);
  gcs = {};
  writes = { count: 0, bytes: 0, maxBytes: 0, ms: 0 };
}, 1_000).unref();

/**
 * With SOAK_PROFILE=<from>:<seconds>: from second <from> on, for <seconds>, V8's sampling heap
 * profiler records where the objects that a full (major) GC later collects were allocated: what is
 * promoted to the old generation and then dies there (with SOAK_PROFILE_ALL=1: every allocation,
 * those a scavenge collects too). Written to SOAK_PROFILE_FILE.
 */
const [from, seconds] = (process.env.SOAK_PROFILE ?? '').split(':').map(Number);
if (from !== undefined && seconds !== undefined && process.env.SOAK_PROFILE_FILE) {
  const file = process.env.SOAK_PROFILE_FILE;
  setTimeout(async () => {
    const session = new Session();
    session.connect();
    await session.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: process.env.SOAK_PROFILE_ALL === '1' });
    setTimeout(async () => {
      const { profile } = await session.post('HeapProfiler.stopSampling');
      fs.writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
    }, seconds * 1000).unref();
  }, from * 1000).unref();
}

/** With SOAK_SNAPSHOT=<second> and SOAK_SNAPSHOT_FILE: a heap snapshot (live objects only) then. */
const snapshotAt = Number(process.env.SOAK_SNAPSHOT);
if (snapshotAt > 0 && process.env.SOAK_SNAPSHOT_FILE) {
  const file = process.env.SOAK_SNAPSHOT_FILE;
  setTimeout(() => void import('node:v8').then((v8) => v8.writeHeapSnapshot(file)), snapshotAt * 1000).unref();
}
