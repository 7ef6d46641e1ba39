import { randomBytes } from 'node:crypto';
import { Socket } from 'node:net';
import pg from 'pg';
import { DEFAULT_SERVICE_NAME, InProcessRevocations, type RevocationListener, type SessionRevocations } from '@sl-accounts/service/core';

/**
 * The channel the triggers of migration 0003 notify: token digests joined by commas, or `*` for
 * every session. An empty payload (`NOTIFY sl_session_revocations` typed by hand) means every session too.
 */
export const REVOCATION_CHANNEL = 'sl_session_revocations';

export interface RevocationFeedOptions {
  readonly connectionString: string;
  /**
   * How often a heartbeat goes out while the feed is in use (`lagMs` asked within the last
   * second). Default 25 ms: `lagMs` then stays below a heartbeat interval plus a round trip, well
   * inside a cache's 100 ms bound. While unused, one goes out every `deadAfterMs`.
   */
  readonly heartbeatMs?: number;
  /** A heartbeat not back within this bound means a dead connection: it is dropped and opened again. Default 1000 ms. */
  readonly deadAfterMs?: number;
  /** Bound on connecting and starting to listen. Default 5000 ms. */
  readonly connectTimeoutMs?: number;
  /** First wait before reconnecting; it doubles after each failure up to `maxBackoffMs`. Default 100 ms. */
  readonly minBackoffMs?: number;
  /** Default 2000 ms. */
  readonly maxBackoffMs?: number;
  /** Hears the first failure of each outage (never a heartbeat); the feed reconnects by itself. */
  readonly onError?: (error: Error) => void;
}

/** How long after the last `lagMs` the feed counts as in use. */
const IN_USE_MS = 1_000;
/** How long `close()` waits for the server to acknowledge the goodbye before dropping the socket. */
const END_TIMEOUT_MS = 500;

/**
 * Session revocations as a Postgres server announces them, on one connection of its own (never the
 * pool's: a LISTEN belongs to a session, and this one must stay open).
 *
 * How `lagMs` is known: the feed sends itself heartbeats, `NOTIFY` on a channel only it listens
 * to (so processes do not wake each other), and remembers when it sent each. Postgres keeps one
 * notification queue per cluster; a transaction appends its notifications to it while committing,
 * under a lock held until its commit is done, so queue order is commit order. A listening backend
 * reads that queue in order, stopping at entries of transactions still committing, and pg emits the
 * messages in the order they arrive. So when a heartbeat sent at time T comes back, every
 * revocation committed before T (its entry lies before the heartbeat's) has already been handed to
 * the listeners: the feed is caught up to T, and lags by the time since T (on its own monotonic
 * clock, `performance.now()`). Notifications are sent only on commit; a rolled-back delete never appears.
 *
 * Across a reconnect messages may have been missed: after LISTEN succeeds the listeners hear
 * `'all'`, and `lagMs` stays `Infinity` until the first heartbeat sent after LISTEN returns.
 *
 * It opens on the first `subscribe`, never keeps the process alive (its socket and timers are
 * unref'd) and never throws from a connection problem: it reports it and reconnects, with backoff.
 */
export class PostgresRevocationFeed implements SessionRevocations {
  readonly #options: RevocationFeedOptions;
  readonly #heartbeatMs: number;
  readonly #deadAfterMs: number;
  readonly #fanout = new InProcessRevocations();
  /** Private to this feed: 63 bytes at most, as identifiers are. */
  readonly #heartbeatChannel = `sl_revocation_heartbeat_${randomBytes(8).toString('hex')}`;

  #started = false;
  #closed = false;
  #connection: Connection | undefined;
  /** The send time of the last confirmed heartbeat (`performance.now()`); -Infinity when none counts. */
  #caughtUpTo = Number.NEGATIVE_INFINITY;
  #ticker: NodeJS.Timeout | undefined;
  #retry: NodeJS.Timeout | undefined;
  #backoffMs: number;
  /** Whether this outage has been reported (reset once a heartbeat comes back). */
  #reported = false;
  #asked = false;
  #lastAskedAt = Number.NEGATIVE_INFINITY;
  #sequence = 0;
  #opened = 0;

  constructor(options: RevocationFeedOptions) {
    this.#options = options;
    this.#heartbeatMs = options.heartbeatMs ?? 25;
    this.#deadAfterMs = options.deadAfterMs ?? 1_000;
    this.#backoffMs = options.minBackoffMs ?? 100;
  }

  subscribe(listener: RevocationListener): () => void {
    const unsubscribe = this.#fanout.subscribe(listener);
    if (!this.#started && !this.#closed) {
      this.#started = true;
      this.#ticker = setInterval(() => this.#tick(), this.#heartbeatMs).unref();
      this.#open();
    }
    return unsubscribe;
  }

  lagMs(): number {
    // The hot path of a session cache: a flag, read by the next tick.
    this.#asked = true;
    return performance.now() - this.#caughtUpTo;
  }

  /** What the feed is doing now, for tests and diagnostics. */
  status(): RevocationFeedStatus {
    return { connectionsOpened: this.#opened, reconnectScheduled: this.#retry !== undefined, nextBackoffMs: this.#backoffMs };
  }

  /** Ends the connection and every timer; a pending reconnect never happens. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#ticker);
    clearTimeout(this.#retry);
    this.#retry = undefined;
    this.#caughtUpTo = Number.NEGATIVE_INFINITY;
    const connection = this.#connection;
    this.#connection = undefined;
    if (!connection) return;
    // Whoever awaits close() wants it finished: the goodbye may keep the process alive for its bound.
    connection.socket.ref();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, END_TIMEOUT_MS)));
    await Promise.race([connection.client.end().catch(() => {}), late]);
    clearTimeout(timer);
    connection.socket.destroy();
  }

  #open(): void {
    this.#retry = undefined;
    this.#opened++;
    // A socket of our own, unref'd before it connects, so the feed never keeps the process alive.
    const socket = new Socket();
    socket.unref();
    const client = new pg.Client({
      connectionString: this.#options.connectionString,
      stream: () => socket,
      // Besides the heartbeats: a peer that vanished while the feed is idle is noticed too.
      keepAlive: true,
      keepAliveInitialDelayMillis: 1_000,
      application_name: `${DEFAULT_SERVICE_NAME} revocations`,
    });
    const connection: Connection = { client, socket, openedAt: performance.now(), listening: false, inFlight: false, pending: [], lastSentAt: Number.NEGATIVE_INFINITY };
    this.#connection = connection;
    client.on('error', (error) => this.#lost(connection, error));
    client.on('end', () => this.#lost(connection, new Error('Connection terminated')));
    client.on('notification', (message) => this.#heard(connection, message));
    client
      .connect()
      .then(() => client.query(`listen ${REVOCATION_CHANNEL}; listen ${this.#heartbeatChannel}`))
      .then(
        () => this.#listening(connection),
        (error: Error) => this.#lost(connection, error),
      );
  }

  #listening(connection: Connection): void {
    if (connection !== this.#connection) return;
    connection.listening = true;
    // Whatever was revoked while no one listened is unknown: everything may have been.
    this.#fanout.publish('all');
    this.#beat(connection);
  }

  #heard(connection: Connection, message: pg.Notification): void {
    if (connection !== this.#connection) return;
    if (message.channel === REVOCATION_CHANNEL) {
      const payload = message.payload ?? '';
      this.#fanout.publish(payload === '*' || payload === '' ? 'all' : payload.split(','));
      return;
    }
    if (message.channel !== this.#heartbeatChannel) return;
    const sequence = Number(message.payload);
    while (connection.pending.length > 0 && connection.pending[0]!.sequence <= sequence) {
      const sent = connection.pending.shift()!;
      if (sent.sequence === sequence) this.#caughtUpTo = sent.at;
    }
    this.#backoffMs = this.#options.minBackoffMs ?? 100;
    this.#reported = false;
  }

  #tick(): void {
    const connection = this.#connection;
    if (!connection) return;
    const now = performance.now();
    if (!connection.listening) {
      const bound = this.#options.connectTimeoutMs ?? 5_000;
      if (now - connection.openedAt > bound) this.#lost(connection, new Error(`not listening after ${bound} ms`));
      return;
    }
    const oldest = connection.pending[0];
    if (oldest && now - oldest.at > this.#deadAfterMs) {
      this.#lost(connection, new Error(`no heartbeat back within ${this.#deadAfterMs} ms`));
      return;
    }
    if (this.#asked) {
      this.#asked = false;
      this.#lastAskedAt = now;
    }
    const inUse = now - this.#lastAskedAt < IN_USE_MS;
    if (inUse || now - connection.lastSentAt >= this.#deadAfterMs) this.#beat(connection);
  }

  #beat(connection: Connection): void {
    // One NOTIFY at a time: pg would queue a second behind it anyway.
    if (connection.inFlight) return;
    const sequence = ++this.#sequence;
    // Taken before the NOTIFY leaves, so the heartbeat enters the queue after this time.
    const at = performance.now();
    connection.pending.push({ sequence, at });
    connection.lastSentAt = at;
    connection.inFlight = true;
    // A transaction of its own (Postgres gives it an xid, ~40/s while in use) that writes nothing
    // but its commit record, which Postgres does not wait to flush: no disk wait, whatever synchronous_commit says.
    connection.client.query(`notify ${this.#heartbeatChannel}, '${sequence}'`).then(
      () => (connection.inFlight = false),
      (error: Error) => this.#lost(connection, error),
    );
  }

  /** Drops a connection that failed (once: later events of the same one are ignored) and schedules the next. */
  #lost(connection: Connection, error: Error): void {
    if (connection !== this.#connection) return;
    this.#connection = undefined;
    this.#caughtUpTo = Number.NEGATIVE_INFINITY;
    connection.socket.destroy();
    if (this.#closed) return;
    if (!this.#reported) {
      this.#reported = true;
      const code = (error as { code?: unknown }).code;
      this.#options.onError?.(
        Object.assign(new Error(`session revocation feed: ${error.message}; cached sessions are not served until it listens again`, { cause: error }), code === undefined ? {} : { code }),
      );
    }
    this.#retry = setTimeout(() => this.#open(), this.#backoffMs).unref();
    this.#backoffMs = Math.min(this.#backoffMs * 2, this.#options.maxBackoffMs ?? 2_000);
  }
}

/** What a revocation feed is doing (see `PostgresRevocationFeed.status`). */
export interface RevocationFeedStatus {
  /** Connections opened so far, the first one included: reconnection attempts are this less one. */
  readonly connectionsOpened: number;
  /** Whether a reconnect is scheduled: the connection failed and the wait before the next attempt runs. */
  readonly reconnectScheduled: boolean;
  /** The wait before the attempt that follows the next failure (it doubles after each, up to `maxBackoffMs`). */
  readonly nextBackoffMs: number;
}

/** One connection attempt and what it has sent; a new attempt starts afresh. */
interface Connection {
  readonly client: pg.Client;
  readonly socket: Socket;
  readonly openedAt: number;
  listening: boolean;
  /** Whether a heartbeat's NOTIFY is still awaiting its answer. */
  inFlight: boolean;
  /** Heartbeats sent and not yet back, oldest first. */
  readonly pending: { readonly sequence: number; readonly at: number }[];
  lastSentAt: number;
}
