/**
 * The session lookup floor: plain node:http doing the same work as GET /api/me on Postgres (cookie,
 * SHA-256 digest, one indexed session + user lookup as a named prepared statement, expiry check) with
 * raw `pg` and the same pool size, answering the same JSON.
 */
import { createHash } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_SIZE ?? 10) });
const LOOKUP = {
  name: 'floor_me',
  text: 'select u.id, u.name, u.email, s.expires_at from sessions s join users u on u.id = s.user_id where s.token_digest = $1',
};

function send(res: ServerResponse, status: number, body: unknown) {
  const json = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(json) });
  res.end(json);
}

const server = createServer(async (req, res) => {
  if (req.url !== '/api/me') return send(res, 404, { ok: false, error: 'Not found' });
  const token = /(?:^|;\s*)sl_session=([^;]*)/.exec(req.headers.cookie ?? '')?.[1];
  if (!token) return send(res, 401, { ok: false, error: 'Not signed in' });
  const digest = createHash('sha256').update(token).digest('hex');
  const { rows } = await pool.query({ ...LOOKUP, values: [digest] });
  const row = rows[0] as { id: number; name: string; email: string; expires_at: Date } | undefined;
  if (!row || row.expires_at.getTime() <= Date.now()) return send(res, 401, { ok: false, error: 'Not signed in' });
  send(res, 200, { ok: true, user: { id: row.id, name: row.name, email: row.email } });
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
