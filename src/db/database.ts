// Opens the database the configuration names: DATABASE_URL, or the embedded PostgreSQL.
import pg from 'pg';
import type { Config } from '../config.ts';
import { silentLogger, type Logger } from '../log.ts';
import { startEmbedded } from './embedded.ts';
import { clientOptions, connectClient, createPool, type Pool } from './pool.ts';

const EMBEDDED_DATABASE = 'wagerline';

export interface Database {
  url: string;
  pool: Pool;
  close(): Promise<void>;
}

async function ensureDatabase(serverUrl: string, name: string, connectTimeoutMs: number, keepAliveMs: number): Promise<string> {
  const client = new pg.Client(clientOptions(serverUrl, 'wagerline', connectTimeoutMs, keepAliveMs));
  await connectClient(client, connectTimeoutMs);
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`).catch((error: { code?: string }) => {
        // Created by a concurrent start: 42P04, or 23505 when both inserted into pg_database at once.
        if (error.code !== '42P04' && error.code !== '23505') throw error;
      });
    }
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export interface OpenOptions {
  /** Bound on each statement of the pool (serve's WAGERLINE_DB_QUERY_TIMEOUT_MS); none when absent. */
  queryTimeoutMs?: number;
}

export async function openDatabase(config: Config, log: Logger = silentLogger, options: OpenOptions = {}): Promise<Database> {
  const connectTimeoutMs = config.WAGERLINE_DB_CONNECT_TIMEOUT_MS;
  const keepAliveMs = config.WAGERLINE_DB_KEEPALIVE_MS;
  const bounds = { connectTimeoutMs, keepAliveMs, ...(options.queryTimeoutMs !== undefined && { queryTimeoutMs: options.queryTimeoutMs }) };
  if (config.DATABASE_URL) {
    const pool = createPool(config.DATABASE_URL, 10, bounds);
    return { url: config.DATABASE_URL, pool, close: () => pool.end() };
  }
  const embedded = await startEmbedded(config.WAGERLINE_DATA_DIR, config.WAGERLINE_EMBEDDED_PG_PORT, log);
  const url = await ensureDatabase(embedded.url, EMBEDDED_DATABASE, connectTimeoutMs, keepAliveMs);
  // Idle connections kept: the process that started the server sees this one and leaves it running.
  const pool = createPool(url, 10, { keepIdle: true, ...bounds });
  return {
    url,
    pool,
    close: async () => {
      await pool.end();
      await embedded.stop();
    },
  };
}
