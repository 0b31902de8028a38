// A migrated scratch database for a benchmark: on DATABASE_URL's server when set, else on an
// embedded PostgreSQL in a temporary directory. drop() removes it (and stops the embedded server).
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbedded } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { freePort } from '../test/helpers/net.ts';

export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function scratchDatabase(prefix: string): Promise<ScratchDatabase> {
  let tmp: string | undefined;
  let embedded: Awaited<ReturnType<typeof startEmbedded>> | undefined;
  let serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'wagerline-bench-'));
    chmodSync(tmp, 0o755);
    embedded = await startEmbedded(tmp, await freePort());
    serverUrl = embedded.url;
    process.once('exit', () => stopLeftBehind(tmp!));
  }
  const name = `wl_bench_${prefix}_${process.pid}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  await migrate(url.toString());
  return {
    url: url.toString(),
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      await admin.end();
      await embedded?.stop();
      if (tmp) rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/**
 * A benchmark that dies before drop() (an uncaught error) would leave its embedded server running:
 * at exit, one still running in the scratch directory gets a fast shutdown (SIGINT). The directory
 * itself stays behind in that case.
 */
function stopLeftBehind(dir: string): void {
  try {
    const pid = Number(readFileSync(path.join(dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    if (pid > 0) process.kill(pid, 'SIGINT');
  } catch {
    // Stopped already by drop() (no pid file), or the directory is gone.
  }
}
