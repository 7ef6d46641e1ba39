import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SERVICE_NAME } from '@sl-accounts/service/core';
import { REQUEST_MESSAGE, RequestRecord } from '@sl-accounts/service/http';
import { loadConfig } from '@sl-accounts/server';
import { LOG_STACK_MAX_CHARS, LOG_VALUE_MAX_CHARS, batchedLines, boundLine, boundedLines, createLogger, logFormatFor, readableLines } from '../src/logger.ts';

describe('the log format', () => {
  it('is readable on a terminal and JSON elsewhere, unless LOG_FORMAT says', () => {
    expect(logFormatFor(undefined, { isTTY: true })).toBe('pretty');
    expect(logFormatFor(undefined, { isTTY: false })).toBe('json');
    expect(logFormatFor(undefined, {})).toBe('json');
    expect(logFormatFor('json', { isTTY: true })).toBe('json');
    expect(logFormatFor('pretty', {})).toBe('pretty');
  });

  it('LOG_FORMAT takes pretty or json, and nothing else', () => {
    expect(loadConfig({}).logFormat).toBeUndefined();
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(loadConfig({ LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(() => loadConfig({ LOG_FORMAT: 'yaml' })).toThrow(/^Invalid configuration: LOG_FORMAT/);
  });
});

describe('readable lines', () => {
  const line = readableLines(false);
  const entry = (fields: object) => JSON.stringify({ level: 30, time: Date.UTC(2026, 0, 1, 12), pid: 1, hostname: 'h', service: 'sl-accounts', ...fields });

  it('write a request as one sentence, keeping its id', () => {
    const text = line(entry({ msg: 'request', reqId: 'abc-1', method: 'GET', path: '/api/health', status: 200, ms: 1.2 }));
    expect(text).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: GET \/api\/health 200 1\.2 ms \{"reqId":"abc-1"\}\n$/);
  });

  it('write a mail of the log mailer as a mail reads: its headers, a blank line, its text', () => {
    const mail = { messageId: '<id@localhost>', to: 'ops@example.net', replyTo: 'ada@example.com', subject: 'Hello', text: 'First line\nhttp://127.0.0.1:3000/reset?token=abc\n' };
    expect(line(entry({ msg: 'mail', mail }))).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: mail \(not sent: SMTP_URL is unset\)\n {2}To: ops@example.net\n {2}Reply-To: ada@example.com\n {2}Subject: Hello\n {2}Message-ID: <id@localhost>\n\n {2}First line\n {2}http:\/\/127\.0\.0\.1:3000\/reset\?token=abc\n$/,
    );
  });

  it('name where mails go in the start-up line, and whether contact messages are mailed', () => {
    const base = { msg: 'listening', url: 'http://127.0.0.1:3000', store: 'memory', docs: 'http://127.0.0.1:3000/docs/api' };
    expect(line(entry({ ...base, mail: 'smtp://mail.example.org:587', contactTo: 'ops@example.net' }))).toContain(
      'API docs: http://127.0.0.1:3000/docs/api; mail: smtp://mail.example.org:587, contact messages to ops@example.net\n',
    );
    expect(line(entry({ ...base, mail: 'log', contactTo: null }))).toContain('; mail: log, contact messages not mailed (CONTACT_TO unset)\n');
  });

  it('write the start-up line with the URL, the store and where its data is, and the docs', () => {
    const pglite = line(entry({ msg: 'listening', url: 'http://127.0.0.1:3000', store: 'pglite', dataDir: '/srv/data', docs: 'http://127.0.0.1:3000/docs/api', maxConnections: 10 }));
    expect(pglite).toContain('INFO: listening on http://127.0.0.1:3000; store: pglite in /srv/data; API docs: http://127.0.0.1:3000/docs/api {"maxConnections":10}');
    const postgres = line(entry({ msg: 'listening', url: 'http://127.0.0.1:3000', store: 'postgres', database: 'db.example:5432/accounts', docs: 'http://127.0.0.1:3000/docs/api', metrics: 'http://127.0.0.1:9464/metrics' }));
    expect(postgres).toContain('store: postgres at db.example:5432/accounts; API docs: http://127.0.0.1:3000/docs/api; metrics: http://127.0.0.1:9464/metrics');
    const memory = line(entry({ msg: 'listening', url: 'http://127.0.0.1:3000', store: 'memory', docs: 'http://127.0.0.1:3000/docs/api' }));
    expect(memory).toContain('store: memory (nothing survives a restart)');
    const sqlite = line(entry({ msg: 'listening', url: 'http://127.0.0.1:3000', store: 'sqlite', file: '/srv/data/accounts.sqlite', docs: 'http://127.0.0.1:3000/docs/api' }));
    expect(sqlite).toContain('INFO: listening on http://127.0.0.1:3000; store: sqlite in /srv/data/accounts.sqlite; API docs: http://127.0.0.1:3000/docs/api\n');
  });

  it('write other entries with their fields on the same line, and errors with their stack', () => {
    expect(line(entry({ level: 40, msg: 'store unavailable', reqId: 'abc-2', cause: 'Connection terminated' }))).toContain('WARN: store unavailable {"reqId":"abc-2","cause":"Connection terminated"}');
    const error = line(entry({ level: 50, msg: 'unhandled error', err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at here' } }));
    expect(error).toContain('ERROR: unhandled error');
    expect(error).toContain('at here');
  });
});

describe('JSON lines', () => {
  it('given in one turn of the event loop go out in one write, in order, at the end of that turn', async () => {
    const writes: string[] = [];
    const destination = batchedLines({ write: (chunk: string) => writes.push(chunk) });
    destination.write('{"n":1}\n');
    destination.write('{"n":2}\n');
    destination.write('{"n":3}\n');
    expect(writes).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(['{"n":1}\n{"n":2}\n{"n":3}\n']);
    destination.write('{"n":4}\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(['{"n":1}\n{"n":2}\n{"n":3}\n', '{"n":4}\n']);
  });

  it('hold the request line the server writes itself exactly as pino writes it, a child logger\'s bindings and a long path\'s bound included', async () => {
    const written: string[] = [];
    const stdout = { isTTY: false, write: (chunk: string) => void written.push(chunk) } as unknown as NodeJS.WriteStream;
    const logger = createLogger({ logLevel: 'info', logFormat: 'json' }, stdout);
    const pinos: string[] = [];
    const reference = pino({ level: 'info', base: { service: DEFAULT_SERVICE_NAME } }, boundedLines({ write: (line) => void pinos.push(line) }));
    const records = ['/api/me', '/a"b\\c', '/ü/😀', '/\u0001tab\t', `/${'p'.repeat(2_000)}`].map((path, i) => new RequestRecord(`id-${i}`, 'GET', path, 200 + i, i / 10));
    for (const log of [logger, reference]) {
      for (const record of records) log.info(record, REQUEST_MESSAGE);
      log.child({ worker: 'a"1' }).info(new RequestRecord('id-c', 'POST', '/api/login', 429, 12.5), REQUEST_MESSAGE);
      // Not the request line: pino's own way, whatever the message.
      log.info({ reqId: 'x', method: 'GET' }, REQUEST_MESSAGE);
      log.warn(new RequestRecord('id-w', 'GET', '/api/me', 200, 1), REQUEST_MESSAGE);
    }
    await new Promise((resolve) => setImmediate(resolve));
    const lines = (text: string) => text.split('\n').filter(Boolean).map((line) => line.replace(/"time":\d+,/, '"time":0,'));
    expect(lines(written.join(''))).toEqual(lines(pinos.join('')));
    expect(lines(written.join(''))).toHaveLength(8);
    expect(JSON.parse(lines(written.join(''))[4]!)).toMatchObject({ path: `/${'p'.repeat(LOG_VALUE_MAX_CHARS - 1)}…(2001 chars)`, status: 204 });
  });

  it('still pending when the process exits are written before it ends', { tags: ['process'] }, async () => {
    const logger = new URL('../src/logger.ts', import.meta.url).pathname;
    const script = `const { createLogger } = await import(${JSON.stringify(logger)});
      const log = createLogger({ logLevel: 'info', logFormat: 'json' });
      for (let i = 0; i < 1000; i++) log.info({ i }, 'line');
      process.exit(0);`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]);
    const lines = stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { i: number; msg: string });
    expect(lines.map((line) => line.i)).toEqual(Array.from({ length: 1000 }, (_, i) => i));
  });
});

describe('bounded lines', () => {
  const entry = (fields: object) => `${JSON.stringify({ level: 30, time: 1, msg: 'request', ...fields })}\n`;

  it('pass a line with no long value unchanged', () => {
    const line = entry({ path: '/api/me', ua: 'x'.repeat(LOG_VALUE_MAX_CHARS - 10) });
    expect(boundLine(line)).toBe(line);
  });

  it('cut each long value, noting its length, nested ones and stacks included', () => {
    const path = `/${'a'.repeat(14_999)}`;
    const stack = `Error: boom\n${'    at frame (file.ts:1:1)\n'.repeat(400)}`;
    const bounded = boundLine(entry({ path, err: { message: 'm'.repeat(5_000), stack }, tags: ['t'.repeat(2_000)] }));
    expect(bounded.endsWith('\n')).toBe(true);
    expect(bounded.length).toBeLessThan(LOG_STACK_MAX_CHARS + 4 * LOG_VALUE_MAX_CHARS);
    const parsed = JSON.parse(bounded) as { path: string; err: { message: string; stack: string }; tags: string[] };
    expect(parsed.path).toBe(`/${'a'.repeat(LOG_VALUE_MAX_CHARS - 1)}…(15000 chars)`);
    expect(parsed.err.message).toBe(`${'m'.repeat(LOG_VALUE_MAX_CHARS)}…(5000 chars)`);
    expect(parsed.err.stack).toBe(`${stack.slice(0, LOG_STACK_MAX_CHARS)}…(${stack.length} chars)`);
    expect(parsed.tags).toEqual([`${'t'.repeat(LOG_VALUE_MAX_CHARS)}…(2000 chars)`]);
  });

  it('apply to readable lines too', async () => {
    const written: string[] = [];
    const stdout = { isTTY: false, write: (chunk: string) => void written.push(chunk) } as unknown as NodeJS.WriteStream;
    const logger = createLogger({ logLevel: 'info', logFormat: 'pretty' }, stdout);
    logger.info({ method: 'GET', path: `/${'b'.repeat(14_999)}`, status: 404, ms: 1 }, 'request');
    expect(written).toHaveLength(1);
    expect(written[0]).toContain(`GET /${'b'.repeat(LOG_VALUE_MAX_CHARS - 1)}…(15000 chars) 404 1 ms`);
    expect(written[0]!.length).toBeLessThan(2 * LOG_VALUE_MAX_CHARS);
  });
});
