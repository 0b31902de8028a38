// The PostgreSQL pool and the transaction helper every module uses.
import pg from 'pg';
import { AppError } from '../errors.ts';

export type Pool = pg.Pool;
export type Queryable = pg.Pool | pg.PoolClient;
export type Tx = pg.PoolClient;

// NUMERIC (1700) and BIGINT (20) come back as strings so money and counters are never floats.
pg.types.setTypeParser(1700, (value) => value);
pg.types.setTypeParser(20, (value) => value);

/** How long opening one connection may take when no setting says (WAGERLINE_DB_CONNECT_TIMEOUT_MS). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5000;

/**
 * Idle time after which a connection is probed when no setting says (WAGERLINE_DB_KEEPALIVE_MS).
 * Node then probes every second, 10 times (socket.setKeepAlive), so a connection to a host that
 * fell silent is dropped about 10 s after this instead of after the system's two hours.
 */
export const DEFAULT_KEEPALIVE_MS = 10000;

/**
 * The database could not be had: a connection refused, reset, or not answered within the connect
 * timeout (a host that drops packets would otherwise hold the caller for minutes). An AppError, so
 * that every answer is a clean 503 `service_unavailable`; `reason` says why, for the logs only
 * (it names the host).
 */
export class DatabaseUnavailable extends AppError {
  /** `timedOut`: the host did not answer within the connect timeout (`reason` is ours, not the driver's). */
  constructor(readonly reason: string, readonly timedOut: boolean, cause: unknown) {
    super('service_unavailable', 'the database cannot be reached; try again shortly', { cause });
    this.name = 'DatabaseUnavailable';
  }

  /** As background work logs it (String(error)): with the reason. */
  override toString(): string {
    return `${this.name}: ${this.message} (${this.reason})`;
  }
}

/**
 * Whether an error of opening a connection means the database is out of reach: the network's
 * errors and timeouts (they carry no PostgreSQL severity), a connection exception (class 08), a
 * server starting or stopping (57P03), or one out of connection slots (53300). A refused login or
 * a missing database is not: that is the configuration's fault, and says so itself.
 */
function isUnreachable(error: unknown): boolean {
  const e = error as { severity?: unknown; code?: unknown };
  if (e?.severity === undefined) return true;
  return typeof e.code === 'string' && (e.code.startsWith('08') || e.code === '57P03' || e.code === '53300');
}

/** The error of a failed connect, as callers see it: DatabaseUnavailable when the database is out of reach. */
export function connectError(error: unknown, connectTimeoutMs: number): unknown {
  if (error instanceof DatabaseUnavailable || !isUnreachable(error)) return error;
  const e = error as { message?: unknown; code?: unknown };
  // pg destroys a connection that did not open in time with this message (client.js).
  const timedOut = e?.message === 'timeout expired';
  const reason = timedOut ? `no answer within ${connectTimeoutMs} ms (WAGERLINE_DB_CONNECT_TIMEOUT_MS)` : String(e?.message ?? error);
  return new DatabaseUnavailable(reason, timedOut, error);
}

/** pg's error of a statement not answered within the client's query_timeout (client.js). */
function isQueryTimeout(error: unknown): boolean {
  return error instanceof Error && (error as { code?: unknown }).code === undefined && error.message === 'Query read timeout';
}

/**
 * The socket's errors of an open connection: reset, or given up by the system (ETIMEDOUT: no answer
 * to the keepalive probes or to retransmissions; EHOSTUNREACH/ENETUNREACH: the route is gone).
 */
const SOCKET_LOST = new Set(['ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * pg's messages (no code, no severity) for a query on a connection that is gone: the socket closed
 * under it, or closed before it was sent — which of the two a query meets after its session was
 * ended depends on whether pg had read the close yet (client.js: "not queryable").
 */
const LOST_MESSAGE = /^(Connection terminated|Client has encountered a connection error and is not queryable|Client was closed and is not queryable)/;

/**
 * A query's error when its connection was lost under it, as DatabaseUnavailable (a 503 the client
 * may retry, as for a failed connect; not an internal error logged with a stack): the server ended
 * the session (57P01 administrator command, 57P02 crash of another backend, class 08), the
 * socket closed or failed (pg's "Connection terminated…", SOCKET_LOST), or no answer came
 * within the pool's query timeout (a host fallen silent). Undefined otherwise.
 */
export function connectionLost(error: unknown): DatabaseUnavailable | undefined {
  if (error instanceof DatabaseUnavailable) return error;
  if (isQueryTimeout(error)) return new DatabaseUnavailable('no answer to a statement within WAGERLINE_DB_QUERY_TIMEOUT_MS', true, error);
  const e = error as { code?: unknown; message?: unknown; severity?: unknown } | null;
  if (!e || typeof e !== 'object') return undefined;
  const code = typeof e.code === 'string' ? e.code : '';
  const lost = code.startsWith('08') || code === '57P01' || code === '57P02'
    || (e.severity === undefined && (SOCKET_LOST.has(code) || (typeof e.message === 'string' && LOST_MESSAGE.test(e.message))));
  return lost ? new DatabaseUnavailable(`the connection was lost: ${String(e.message ?? code)}`, false, error) : undefined;
}

/** What bounds a connection's connect and its silence: TCP keepalive after `keepAliveMs` idle. */
function bounds(connectTimeoutMs: number, keepAliveMs: number): pg.ClientConfig {
  return { connectionTimeoutMillis: connectTimeoutMs, keepAlive: true, keepAliveInitialDelayMillis: keepAliveMs };
}

/** Options of a pg.Client of ours: its connect bounded by `connectTimeoutMs`, probed once idle `keepAliveMs`. */
export function clientOptions(connectionString: string, applicationName: string, connectTimeoutMs: number,
  keepAliveMs = DEFAULT_KEEPALIVE_MS): pg.ClientConfig {
  return { connectionString, application_name: applicationName, ...bounds(connectTimeoutMs, keepAliveMs) };
}

/** Connects a client of ours; a database out of reach rejects with DatabaseUnavailable. */
export async function connectClient(client: pg.Client, connectTimeoutMs: number): Promise<void> {
  try {
    await client.connect();
  } catch (error) {
    // Not awaited: the end of a connection that never opened may never be announced.
    void client.end().catch(() => undefined);
    throw connectError(error, connectTimeoutMs);
  }
}

/**
 * How long the server lets a statement run once the client stopped waiting for it. The client's
 * bound fires first (a 503, the connection dropped); the server's, a moment later, stops a
 * statement that was only slow — the server would otherwise run it to its end, on a connection
 * nobody reads — and rolls back its transaction. A statement's own SET LOCAL statement_timeout
 * (reports) still applies within it.
 */
export const SERVER_STATEMENT_GRACE_MS = 1000;

/** pg's query_timeout (the client's wait) and the server's statement_timeout just above it. */
function statementBounds(queryTimeoutMs: number): pg.ClientConfig {
  return { query_timeout: queryTimeoutMs, statement_timeout: queryTimeoutMs + SERVER_STATEMENT_GRACE_MS };
}

interface Bounds {
  connectTimeoutMs: number;
  keepAliveMs: number;
  /** pg's query_timeout: 0 for none. */
  queryTimeoutMs: number;
}

/**
 * A pool whose connect, and so every query and transaction, fails with DatabaseUnavailable when
 * the database is out of reach. Opening a connection is bounded: each client gets pg's
 * connectionTimeoutMillis. Given to the pool itself, it would also fail a request that waits that
 * long for a free connection of a busy pool, which under load would reject placements the wallet
 * has already reserved for. Each connection is probed by TCP keepalive once idle, and with
 * `queryTimeoutMs` each statement is bounded on the client's side (pg's query_timeout) and, a
 * moment later, on the server's (statementBounds).
 */
class BoundedPool extends pg.Pool {
  private readonly connectTimeoutMs: number;

  constructor(options: pg.PoolConfig, { connectTimeoutMs, keepAliveMs, queryTimeoutMs }: Bounds) {
    super({
      ...options,
      Client: class extends pg.Client {
        constructor(config?: pg.ClientConfig) {
          super({ ...config, ...bounds(connectTimeoutMs, keepAliveMs), ...(queryTimeoutMs > 0 && statementBounds(queryTimeoutMs)) });
        }
      },
    });
    this.connectTimeoutMs = connectTimeoutMs;
  }

  override connect(): Promise<pg.PoolClient>;
  override connect(callback: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void): void;
  override connect(callback?: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void): Promise<pg.PoolClient> | void {
    // pg-pool's own query() connects with a callback: both forms are wrapped.
    if (callback) {
      super.connect((err, client, done) => callback(err && (connectError(err, this.connectTimeoutMs) as Error), client, done));
      return;
    }
    return super.connect().catch((error: unknown) => {
      throw connectError(error, this.connectTimeoutMs);
    });
  }
}

export interface PoolOptions {
  /** Idle connections are never closed (a process on the embedded server stays visible there). */
  keepIdle?: boolean;
  /** Bound on opening one connection (WAGERLINE_DB_CONNECT_TIMEOUT_MS). */
  connectTimeoutMs?: number;
  /** Idle time before a connection is probed (WAGERLINE_DB_KEEPALIVE_MS). */
  keepAliveMs?: number;
  /**
   * Bound on waiting for the answer to one statement (WAGERLINE_DB_QUERY_TIMEOUT_MS; none when
   * unset or 0). Past it the statement fails with DatabaseUnavailable and its connection is
   * dropped; the server stops it SERVER_STATEMENT_GRACE_MS later (statement_timeout), so it must
   * exceed every statement's own bound.
   */
  queryTimeoutMs?: number;
}

export function createPool(connectionString: string, max = 10, options: PoolOptions = {}): Pool {
  const pool = new BoundedPool({ connectionString, max, application_name: 'wagerline', ...(options.keepIdle && { idleTimeoutMillis: 0 }) }, {
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    keepAliveMs: options.keepAliveMs ?? DEFAULT_KEEPALIVE_MS,
    queryTimeoutMs: options.queryTimeoutMs ?? 0,
  });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  return pool;
}

function ignoreLostConnection(): void {}

const RETRYABLE = new Set(['40001', '40P01']); // serialization_failure, deadlock_detected

export interface TransactionOptions {
  /** Attempts for serialization failures and deadlocks before the error is thrown. */
  attempts?: number;
  isolation?: 'read committed' | 'repeatable read' | 'serializable';
  /** READ ONLY: any write fails (and the transaction can run on a read replica). */
  readOnly?: boolean;
  /** SET LOCAL lock_timeout: a statement waiting longer for a lock fails (55P03, not retried). */
  lockTimeoutMs?: number;
  /**
   * SET LOCAL plan_cache_mode = force_generic_plan: named statements run on their cached plan
   * instead of being planned again for their values. For transactions of key lookups and writes
   * only, where a custom plan is never better and planning is a large share of the work.
   */
  genericPlans?: boolean;
}

/** Runs fn in one transaction; commits on success, rolls back on error, retries conflicts. */
export async function withTransaction<T>(
  pool: Pool,
  fn: (tx: Tx) => Promise<T>,
  options: TransactionOptions = {},
): Promise<T> {
  const attempts = options.attempts ?? 5;
  if (options.lockTimeoutMs !== undefined && !(options.lockTimeoutMs >= 1)) throw new TypeError('withTransaction: lockTimeoutMs must be 1 or more');
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    // A statement past the query timeout is still running on the connection (or lost in the
    // network): the client is dropped, never handed to the next caller to queue behind it.
    let broken: Error | undefined;
    // A connection lost while checked out (server restart, killed backend) fails the running query
    // and then makes the client emit 'error'. pg-pool listens only while a client is idle, and an
    // unheard 'error' would crash the process; the failed query already reports the problem, and
    // the pool discards the dead client on release.
    client.on('error', ignoreLostConnection);
    try {
      const isolation = options.isolation ? ` ISOLATION LEVEL ${options.isolation}` : '';
      // One round trip: the simple-query protocol runs every statement of the string.
      const lockTimeout = options.lockTimeoutMs === undefined ? '' : `; SET LOCAL lock_timeout = ${Math.trunc(options.lockTimeoutMs)}`;
      const plans = options.genericPlans ? '; SET LOCAL plan_cache_mode = force_generic_plan' : '';
      await client.query(`BEGIN${isolation}${options.readOnly ? ' READ ONLY' : ''}${lockTimeout}${plans}`);
      const result = await fn(client);
      // COMMIT of a transaction that failed inside (an error caught and not rethrown) answers
      // ROLLBACK without an error: nothing was written, and the caller must not act as if it was.
      const committed = await client.query('COMMIT');
      if (committed.command !== 'COMMIT') throw new Error(`the transaction was rolled back at COMMIT (${committed.command})`);
      return result;
    } catch (error) {
      // No ROLLBACK after a timeout: it would wait behind the statement, as long again. Dropping
      // the connection rolls the transaction back once the server notices.
      if (isQueryTimeout(error)) broken = error as Error;
      else await client.query('ROLLBACK').catch((failed: unknown) => { if (isQueryTimeout(failed)) broken = failed as Error; });
      const code = (error as { code?: string }).code;
      if (attempt >= attempts || !code || !RETRYABLE.has(code)) throw error;
    } finally {
      client.removeListener('error', ignoreLostConnection);
      client.release(broken);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
  }
}
