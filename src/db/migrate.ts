// Versioned SQL migrations (src/db/migrations/NNNN_name.sql, immutable once landed), applied by
// node-pg-migrate: each migration in its own transaction, and an advisory lock so that two
// processes starting at once do not both migrate (the second waits, then finds nothing to do).
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
}

export interface MigrateOptions {
  /** Bound on opening the connection (WAGERLINE_DB_CONNECT_TIMEOUT_MS). */
  connectTimeoutMs?: number;
}

export async function migrate(databaseUrl: string, log: Logger = silentLogger, options: MigrateOptions = {}): Promise<MigrateResult> {
  // Our own client, ended and awaited here: the library's own close does not wait for the socket
  // to shut, so a database dropped right after migrating could kill a connection nobody listens to.
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const client = new pg.Client(clientOptions(databaseUrl, 'wagerline-migrate', connectTimeoutMs));
  client.on('error', () => undefined);
  await connectClient(client, connectTimeoutMs);
  try {
    const ran = await runner({
      dbClient: client,
      dir: MIGRATIONS_DIR,
      migrationsTable: MIGRATIONS_TABLE,
      direction: 'up',
      singleTransaction: false,
      advisoryLockMode: 'wait',
      checkOrder: true,
      // The runner's progress text ("> Migrating files:", "### MIGRATION … ###") is debug; one info
      // line below says what was applied.
      logger: {
        debug: (text: string) => log.debug({ module: 'migrate' }, text.trimEnd()),
        info: (text: string) => log.debug({ module: 'migrate' }, text.trimEnd()),
        warn: (text: string) => log.warn({ module: 'migrate' }, text.trimEnd()),
        error: (text: string) => log.error({ module: 'migrate' }, String(text).trimEnd()),
      },
    });
    const applied = ran.map((m) => m.name);
    if (applied.length) log.info({ module: 'migrate', applied }, 'migrations applied');
    return { applied };
  } finally {
    await client.end();
  }
}

async function migrationNames(): Promise<string[]> {
  const files = await readdir(MIGRATIONS_DIR);
  return files.filter((f) => f.endsWith('.sql')).map((f) => f.replace(/\.sql$/, '')).sort();
}

/** The migrations on disk that the database has not run (empty when current). */
export async function pendingMigrations(db: Queryable): Promise<string[]> {
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
