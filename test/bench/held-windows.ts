/**
 * What a flood can make the memory store's limiter hold (issue 25): windows that refuse are never
 * dropped before they end, so they are bounded by the traffic that makes them, not by
 * MEMORY_RATE_LIMIT_KEYS. The flood here is the cheapest: contact messages, 5 from each client key
 * (the limit), so every 5 accepted requests leave one refusing window for an hour. A control run
 * sends the same load with a new key per request (no window ever refuses: the LRU bound holds, at
 * MEMORY_RATE_LIMIT_KEYS windows). Reports the accepted rate and the heap each run left (after a
 * full GC), and per refusing window.
 *
 *   node test/bench/held-windows.ts [seconds=10]
 */
import { START_FLAGS, ipFor, load, spawnServer, type Child } from './lib.ts';

const seconds = Number(process.argv[2] ?? 10);
const MiB = 2 ** 20;

const heapOf = (child: Child) =>
  new Promise<number>((resolve) => {
    child.process.once('message', (m: { memory: { heapUsed: number } }) => resolve(m.memory.heapUsed));
    child.process.send('rss');
  });

async function run(perKey: number, offset: number) {
  const svc = await spawnServer('test/bench/memory-server.ts', {}, '/api/health', ['--expose-gc', ...START_FLAGS]);
  try {
    await load(`${svc.url}/api/health`, { connections: 8, amount: 5_000 });
    const idle = await heapOf(svc);
    let n = 0;
    const result = await load(svc.url, {
      connections: 32,
      duration: seconds,
      requests: [
        {
          method: 'POST',
          path: '/api/contact',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Flood', email: 'flood@example.com', message: 'one of many contact messages' }),
          setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'x-forwarded-for': ipFor(offset + Math.floor(n++ / perKey)) } }),
        },
      ],
    });
    const loaded = await heapOf(svc);
    return { rps: result.rps, accepted: result.total - result.non2xx, refused: result.non2xx, heapGrowth: loaded - idle };
  } finally {
    await svc.stop();
  }
}

const flood = await run(5, 0);
const control = await run(1, 10_000_000);
const held = Math.floor(flood.accepted / 5);
console.log(
  JSON.stringify({
    seconds,
    flood: { acceptedPerSecond: Math.round(flood.accepted / seconds), refusingWindows: held, heapGrowthMiB: +(flood.heapGrowth / MiB).toFixed(1) },
    control: { acceptedPerSecond: Math.round(control.accepted / seconds), heapGrowthMiB: +(control.heapGrowth / MiB).toFixed(1) },
    // An upper bound: the heap the flood left also holds the contact messages the store keeps (at most 10,000).
    heapBytesPerRefusingWindow: Math.round(flood.heapGrowth / Math.max(held, 1)),
    refusingWindowsPerHourAtThisRate: Math.round((held / seconds) * 3600),
  }),
);
