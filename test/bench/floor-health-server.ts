/**
 * The framework floor: plain node:http answering the same health JSON as the service.
 */
import { createServer } from 'node:http';

const server = createServer((req, res) => {
  if (req.url === '/api/health' && req.method === 'GET') {
    const body = JSON.stringify({ ok: true, status: 'ok', service: 'sl-accounts', time: new Date().toISOString() });
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(body) });
    res.end(body);
    return;
  }
  res.writeHead(404).end();
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => process.exit(0)));
