// Versioned SQL migrations (src/db/migrations/NNNN_name.sql, immutable once landed), applied by
// node-pg-migrate one at a time: each in its own transaction, under an advisory lock so that two
// processes starting at once never run the same one (the second waits, then runs what is left).
// One at a time so that a stop asked meanwhile (serve's SIGTERM) lets the migration in progress
// commit and starts no other; a cancel (serve's shutdown deadline) rolls that one back.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readdir } from 'node:fs/promises';
import pg from 'pg';
import { runner } from 'node-pg-migrate';
import { silentLogger, type Logger } from '../log.ts';
import { clientOptions, connectClient, DEFAULT_CONNECT_TIMEOUT_MS, type Queryable } from './pool.ts';

export const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
const MIGRATIONS_TABLE = 'schema_migrations';

export interface MigrateResult {
  applied: string[];
  /** The migrations left unapplied because a stop was asked (empty otherwise). */
  pending: string[];
}

export interface MigrateOptions {
  /** Bound on opening the connection (WAGERLINE_DB_CONNECT_TIMEOUT_MS). */
  connectTimeoutMs?: number;
  /** Idle time before the connection is probed (WAGERLINE_DB_KEEPALIVE_MS). */
  keepAliveMs?: number;
  /** Once aborted, no further migration starts; the one in progress commits. */
  stop?: AbortSignal;
  /** Once aborted, the migration in progress is cancelled (rolled back): migrate rejects with MigrationCancelled. */
  cancel?: AbortSignal;
}

/** The migration in progress was cancelled: nothing of it is kept (its transaction never committed). */
export class MigrationCancelled extends Error {
  constructor(readonly migration: string, cause: unknown) {
    super(`migration ${migration} was cancelled and rolled back`, { cause });
  }
}

export async function migrate(databaseUrl: string, log: Logger = silentLogger, options: MigrateOptions = {}): Promise<MigrateResult> {
  // Our own client, ended and awaited here: the library's own close does not wait for the socket
  // to shut, so a database dropped right after migrating could kill a connection nobody listens to.
  // Ending it also rolls back a migration whose statement failed (the runner leaves it open).
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const client = new pg.Client(clientOptions(databaseUrl, 'wagerline-migrate', connectTimeoutMs, options.keepAliveMs));
  client.on('error', () => undefined);
  await connectClient(client, connectTimeoutMs);
  const applied: string[] = [];
  try {
    for (;;) {
      const pending = await pendingMigrations(client);
      if (!pending.length) break;
      if (options.stop?.aborted) return { applied: logged(log, applied), pending };
      const pid = (client as pg.Client & { processID: number | null }).processID;
      const cancel = () => void cancelBackend(databaseUrl, pid, connectTimeoutMs, log);
      options.cancel?.addEventListener('abort', cancel, { once: true });
      try {
        const ran = await runOne(client, log, () => options.cancel?.aborted === true);
        if (!ran.length) break; // another process applied what was left
        applied.push(...ran);
      } catch (error) {
        if (options.cancel?.aborted) throw new MigrationCancelled(pending[0]!, error);
        throw error;
      } finally {
        options.cancel?.removeEventListener('abort', cancel);
      }
    }
    return { applied: logged(log, applied), pending: [] };
  } finally {
    await client.end();
  }
}

/** One info line saying what was applied. */
function logged(log: Logger, applied: string[]): string[] {
  if (applied.length) log.info({ module: 'migrate', applied }, 'migrations applied');
  return applied;
}

/**
 * Applies the first pending migration, in its transaction; the names applied (none when nothing was
 * left). Once `cancelled`, the runner's errors (the whole migration's SQL, then the unlock refused
 * in the aborted transaction) are expected: debug, not error.
 */
async function runOne(client: pg.Client, log: Logger, cancelled: () => boolean): Promise<string[]> {
  const failure = (level: 'warn' | 'error') => (text: string) => log[cancelled() ? 'debug' : level]({ module: 'migrate' }, String(text).trimEnd());
  const ran = await runner({
    dbClient: client,
    dir: MIGRATIONS_DIR,
    migrationsTable: MIGRATIONS_TABLE,
    direction: 'up',
    count: 1,
    singleTransaction: false,
    advisoryLockMode: 'wait',
    checkOrder: true,
    // The runner's progress text ("> Migrating files:", "### MIGRATION … ###") is debug; one info
    // line says what was applied.
    logger: {
      debug: (text: string) => log.debug({ module: 'migrate' }, text.trimEnd()),
      info: (text: string) => log.debug({ module: 'migrate' }, text.trimEnd()),
      warn: failure('warn'),
      error: failure('error'),
    },
  });
  return ran.map((m) => m.name);
}

/**
 * Cancels the statement the migration's backend runs (or the lock it waits for), from a connection
 * of its own: the migration fails and its transaction is rolled back. Only closing our connection
 * would leave the backend waiting for its lock, holding what it already locked, until it got it.
 */
async function cancelBackend(databaseUrl: string, pid: number | null, connectTimeoutMs: number, log: Logger): Promise<void> {
  if (!pid) return;
  const client = new pg.Client(clientOptions(databaseUrl, 'wagerline-migrate-cancel', connectTimeoutMs));
  client.on('error', () => undefined);
  try {
    await connectClient(client, connectTimeoutMs);
  } catch (error) {
    log.warn({ module: 'migrate', err: String(error) }, 'the migration in progress could not be cancelled');
    return;
  }
  try {
    await client.query('SELECT pg_cancel_backend($1)', [pid]);
  } catch (error) {
    log.warn({ module: 'migrate', err: String(error) }, 'the migration in progress could not be cancelled');
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function migrationNames(): Promise<string[]> {
  const files = await readdir(MIGRATIONS_DIR);
  return files.filter((f) => f.endsWith('.sql')).map((f) => f.replace(/\.sql$/, '')).sort();
}

/** The migrations on disk that the database has not run (empty when current). */
export async function pendingMigrations(db: Queryable | pg.Client): Promise<string[]> {
  const wanted = await migrationNames();
  let done: Set<string>;
  try {
    const { rows } = await db.query<{ name: string }>(`SELECT name FROM ${MIGRATIONS_TABLE}`);
    done = new Set(rows.map((r) => r.name));
  } catch (error) {
    if ((error as { code?: string }).code === '42P01') return wanted; // no migrations table yet
    throw error;
  }
  return wanted.filter((name) => !done.has(name));
}
