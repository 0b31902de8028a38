// The PostgreSQL pool and the transaction helper every module uses.
import pg from 'pg';

export type Pool = pg.Pool;
export type Queryable = pg.Pool | pg.PoolClient;
export type Tx = pg.PoolClient;

// NUMERIC (1700) and BIGINT (20) come back as strings so money and counters are never floats.
pg.types.setTypeParser(1700, (value) => value);
pg.types.setTypeParser(20, (value) => value);

/** `keepIdle`: idle connections are never closed (a process on the embedded server stays visible there). */
export function createPool(connectionString: string, max = 10, keepIdle = false): Pool {
  const pool = new pg.Pool({ connectionString, max, application_name: 'wagerline', ...(keepIdle && { idleTimeoutMillis: 0 }) });
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
      await client.query('ROLLBACK').catch(() => undefined);
      const code = (error as { code?: string }).code;
      if (attempt >= attempts || !code || !RETRYABLE.has(code)) throw error;
    } finally {
      client.removeListener('error', ignoreLostConnection);
      client.release();
    }
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
  }
}
