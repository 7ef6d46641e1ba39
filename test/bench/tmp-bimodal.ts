// Fresh service processes: warm 3 s, measure 2 s; CPU µs per request. VARIANTS: JSON array of extra flag arrays.
import { START_FLAGS, load, spawnServer } from './lib.ts';
const variants: string[][] = JSON.parse(process.env.VARIANTS ?? '[[]]');
const n = Number(process.env.N ?? 8);
const script = process.env.SCRIPT ?? 'packages/server/src/main.ts';
const path = process.env.PATHNAME ?? '/api/health';
const results: number[][] = variants.map(() => []);
for (let i = 0; i < n; i++) {
  for (let v = 0; v < variants.length; v++) {
    const svc = await spawnServer(script, { STORE: 'memory', TRUST_PROXY: '1', LOG_LEVEL: process.env.LOG_LEVEL ?? 'info' }, '/api/health', [...START_FLAGS, ...variants[v]!]);
    await load(`${svc.url}${path}`, { connections: 20, duration: 3 });
    const r = await load(`${svc.url}${path}`, { connections: 20, duration: 2 }, svc.process.pid);
    results[v]!.push(r.cpuUs!);
    await svc.stop();
    console.log(i, JSON.stringify(variants[v]), r.cpuUs!.toFixed(1), Math.round(r.rps));
  }
}
for (let v = 0; v < variants.length; v++) console.log(JSON.stringify(variants[v]), results[v]!.map((x) => x.toFixed(1)).sort().join(' '));
