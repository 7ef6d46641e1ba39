/**
 * The server's log: one JSON object per line for machines (pino's own format, the lines of one turn
 * of the event loop written together), or one readable line per entry for a person at a terminal
 * (pino-pretty, in this process and synchronously, so no line is lost when the process exits).
 * `LOG_FORMAT` chooses; without it, a terminal gets readable lines and anything else JSON.
 */
import { createRequire } from 'node:module';
import { pino, type Logger, type LogFn } from 'pino';
import type * as PinoPrettyModule from 'pino-pretty';
import { DEFAULT_SERVICE_NAME } from '@sl-accounts/service/core';
import { REQUEST_MESSAGE, RequestRecord } from '@sl-accounts/service/http';
import type { Config, LogFormat } from './config.ts';

/** The format for `stdout` when none is configured: readable on a terminal, JSON elsewhere. */
export function logFormatFor(configured: LogFormat | undefined, stdout: { readonly isTTY?: boolean } = process.stdout): LogFormat {
  return configured ?? (stdout.isTTY ? 'pretty' : 'json');
}

export function createLogger(config: Pick<Config, 'logLevel' | 'logFormat'>, stdout: NodeJS.WriteStream = process.stdout): Logger {
  const options = { level: config.logLevel, base: { service: DEFAULT_SERVICE_NAME } };
  if (logFormatFor(config.logFormat, stdout) === 'json') {
    const destination = boundedLines(batchedLines(stdout));
    return pino({ ...options, hooks: { logMethod: requestLinesTo(destination) } }, destination);
  }
  const prettify = readableLines(Boolean(stdout.isTTY) && prettyLines().isColorSupported);
  return pino(options, boundedLines({ write: (line: string) => void stdout.write(prettify(line)) }));
}

/**
 * pino's `logMethod` hook for the JSON log: the request line (`RequestRecord`, one per request)
 * written to `destination` as the very line pino writes for it (its level as a number, `Date.now()`
 * as its time, the logger's own bindings, then the record's fields in order and the message),
 * every other entry passed on to pino.
 *
 * Hand-written by a measurement (docs/performance.md, 2026-12-07): in one server switching between
 * the two on a signal, the line through pino cost a cached `/api/me` 12.5 µs of its 44.1 µs of CPU,
 * this one 1.7 µs of 33.3 (50 connections, 8 interleaved rounds). pino walks any object, escapes
 * each string its own way and builds the line in pieces; this record's shape is known.
 */
function requestLinesTo(destination: { write(line: string): void }): (this: Logger, args: Parameters<LogFn>, method: LogFn, level: number) => void {
  const head = `{"level":${pino.levels.values.info},"time":`;
  const tail = `,"msg":${JSON.stringify(REQUEST_MESSAGE)}}\n`;
  return function (args, method, level) {
    const record = args[0];
    if (record instanceof RequestRecord && args[1] === REQUEST_MESSAGE && args.length === 2 && level === pino.levels.values.info) {
      const { reqId, method: verb, path, status, ms } = record;
      // pino's own serialised bindings (`,"service":"sl-accounts"`, and a child's), as it writes them.
      const bindings = (this as unknown as Record<symbol, string>)[pino.symbols.chindingsSym];
      destination.write(`${head}${Date.now()}${bindings},"reqId":${JSON.stringify(reqId)},"method":${JSON.stringify(verb)},"path":${JSON.stringify(path)},"status":${status},"ms":${ms}${tail}`);
      return;
    }
    method.apply(this, args);
  };
}

/**
 * The longest string a log line keeps whole; longer ones keep this many characters and say how long
 * they were. A client chooses a path, a user agent or a header up to node's 16 KB header limit, and
 * one line per request would carry them all: 1,024 is ten times a long real path or user agent.
 */
export const LOG_VALUE_MAX_CHARS = 1_024;
/** A stack keeps more: node's 10 frames run to 1-2 KB, and a cut stack loses the frame that matters. */
export const LOG_STACK_MAX_CHARS = 4_096;

/**
 * `out`, with every string value of a line cut to its bound (`"/aaaa…(15000 chars)"`). A line no
 * longer than the smallest bound cannot hold a longer value, so the usual line (a request: ~150
 * characters) passes on a length check; only longer ones are parsed and written again.
 */
export function boundedLines(out: { write(line: string): void }): { write(line: string): void } {
  return { write: (line) => out.write(line.length <= LOG_VALUE_MAX_CHARS ? line : boundLine(line)) };
}

/** One JSON log line with its long string values cut; the line itself when none is too long. */
export function boundLine(line: string): string {
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch {
    // Not JSON (pino writes nothing else): cut as a whole.
    return line.length <= LOG_STACK_MAX_CHARS ? line : `${cut(line.trimEnd(), LOG_STACK_MAX_CHARS)}\n`;
  }
  let changed = false;
  const visit = (value: unknown, key: string): unknown => {
    if (typeof value === 'string') {
      const max = key === 'stack' ? LOG_STACK_MAX_CHARS : LOG_VALUE_MAX_CHARS;
      if (value.length <= max) return value;
      changed = true;
      return cut(value, max);
    }
    if (Array.isArray(value)) return value.map((item) => visit(item, key));
    if (value !== null && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      for (const k of Object.keys(record)) record[k] = visit(record[k], k);
    }
    return value;
  };
  visit(entry, '');
  return changed ? `${JSON.stringify(entry)}\n` : line;
}

const cut = (value: string, max: number) => `${value.slice(0, max)}…(${value.length} chars)`;

/** The flushes of destinations holding lines, run when the process exits. */
const unflushed = new Set<() => void>();
process.on('exit', () => {
  for (const flush of unflushed) flush();
});

/**
 * A destination that writes the lines given in one turn of the event loop to `out` in one write,
 * at the end of that turn or at exit: under load, one write(2) for all the requests a turn answered
 * instead of one per request.
 *
 * Kept instead of pino's own `pino.destination({ minLength, sync: false })`, by a measurement
 * (test/bench/log-ab.ts; figures in docs/performance.md): pino's asynchronous writes run on libuv's
 * thread pool, where passwords are hashed. During a login storm each write waited behind the
 * hashes: ~27,000 request lines were still held in memory when the storm ended (none here), and
 * logins ran at 0.64-0.69 of this destination's rate; `/api/health` alone was no faster.
 * (`sync: true` would skip the pool, but pino flushes its buffer at exit only for `sync: false`.)
 */
export function batchedLines(out: { write(chunk: string): unknown }): { write(line: string): void } {
  let pending = '';
  const flush = () => {
    unflushed.delete(flush);
    const chunk = pending;
    pending = '';
    if (chunk) out.write(chunk);
  };
  return {
    write(line) {
      if (!pending) {
        unflushed.add(flush);
        setImmediate(flush);
      }
      pending += line;
    },
  };
}

type PinoPretty = typeof PinoPrettyModule;

/**
 * pino-pretty, loaded the first time readable lines are asked for: a JSON log (a service's usual
 * one) does not load its 29 modules. CommonJS, so it loads synchronously.
 */
const prettyLines = (): PinoPretty => createRequire(import.meta.url)('pino-pretty') as PinoPretty;

/** Fields that the readable lines put into their message (so they are not repeated after it). */
const IN_MESSAGE = ['method', 'path', 'status', 'ms', 'url', 'store', 'dataDir', 'file', 'database', 'docs', 'metrics', 'signal', 'mail', 'contactTo'];

/**
 * The readable line of an entry: time, level, a sentence for the request and start-up lines, and
 * the remaining fields (a request id, an error's code) as JSON on the same line.
 */
export function readableLines(colorize: boolean): (line: string) => string {
  return prettyLines().prettyFactory({
    colorize,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: ['pid', 'hostname', 'service', ...IN_MESSAGE].join(','),
    singleLine: true,
    messageFormat: (log, messageKey) => {
      const message = String(log[messageKey] ?? '');
      if (message === 'request') return `${String(log.method)} ${String(log.path)} ${String(log.status)} ${String(log.ms)} ms`;
      if (message === 'listening') return startupLine(log);
      if (message === 'mail' && typeof log.mail === 'object' && log.mail !== null) return mailBlock(log.mail as Record<string, unknown>);
      return message;
    },
  });
}

/** A mail the log mailer wrote, as a mail reads: its headers, a blank line, its text (links whole, so a terminal makes them clickable). */
function mailBlock(mail: Record<string, unknown>): string {
  const header = (name: string, key: string) => (typeof mail[key] === 'string' ? [`  ${name}: ${mail[key]}`] : []);
  const text = String(mail.text ?? '').replace(/\n$/, '');
  return [
    'mail (not sent: SMTP_URL is unset)',
    ...header('To', 'to'),
    ...header('Reply-To', 'replyTo'),
    ...header('Subject', 'subject'),
    ...header('Message-ID', 'messageId'),
    '',
    ...text.split('\n').map((line) => `  ${line}`),
  ].join('\n');
}

/** `listening on http://127.0.0.1:3000; store: pglite in /srv/data; API docs: http://…/docs/api`. */
function startupLine(log: Record<string, unknown>): string {
  const where = log.dataDir ? ` in ${String(log.dataDir)}` : log.file ? ` in ${String(log.file)}` : log.database ? ` at ${String(log.database)}` : '';
  const store = log.store === 'memory' ? 'memory (nothing survives a restart)' : `${String(log.store)}${where}`;
  const metrics = log.metrics ? `; metrics: ${String(log.metrics)}` : '';
  const mail = log.mail ? `; mail: ${String(log.mail)}${log.contactTo ? `, contact messages to ${String(log.contactTo)}` : ', contact messages not mailed (CONTACT_TO unset)'}` : '';
  return `listening on ${String(log.url)}; store: ${store}; API docs: ${String(log.docs)}${metrics}${mail}`;
}
