import { spawnServer, load, ipFor } from './lib.ts';
const env = JSON.parse(process.env.EXP_ENV ?? '{}');
const svc = await spawnServer('packages/http-koa/src/main.ts', { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/exp1', TRUST_PROXY: '1', ...env });
await fetch(svc.url + '/api/signup', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Bench', email: 'b@example.com', password: 'password1' }) });
let n = 0;
const p99s = [];
for (let i = 0; i < 4; i++) {
  const [storm, probe] = await Promise.all([
    load(svc.url, { connections: 8, duration: 5, requests: [{ method: 'POST', path: '/api/login', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'b@example.com', password: 'password1' }), setupRequest: (r) => ({ ...r, headers: { ...r.headers, 'x-forwarded-for': ipFor(++n) } }) }] }),
    load(svc.url + '/api/health', { connections: 2, overallRate: 100, duration: 4 }),
  ]);
  p99s.push(`${probe.p99}ms/${probe.p50}ms logins ${storm.rps.toFixed(1)}`);
}
console.log(process.env.EXP_ENV, p99s.join(' | '));
await svc.stop();
