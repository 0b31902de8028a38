// The process's JSON logs on stderr (pino, as the HTTP server's): what runs before and beside the
// app logs through this, so that every line a wagerline process writes on stderr is one JSON object
// (docs/operations.md, Logs). The database layer sees only the Logger interface.
import { pino } from 'pino';
import type { Config } from './config.ts';

/** Structured fields, then the message: pino's call shape. */
export interface Logger {
  debug(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
  fatal(fields: Record<string, unknown>, message: string): void;
}

/** JSON lines on stderr at LOG_LEVEL. */
export function createLogger(level: Config['LOG_LEVEL']): Logger {
  return pino({ level }, process.stderr);
}

const nothing = () => undefined;
/** Drops everything: tests, and tools that print nothing but their result. */
export const silentLogger: Logger = { debug: nothing, info: nothing, warn: nothing, error: nothing, fatal: nothing };

/** How background work (the wallet worker, settlement) reports: a warning unless `level` says info. */
export type EventLog = (message: string, fields?: Record<string, unknown>, level?: 'warn' | 'info') => void;

/** An EventLog into `logger` (read at each line: serve's app logger exists only once it is built). */
export function eventLog(logger: () => Logger | undefined, module: string): EventLog {
  return (message, fields, level = 'warn') => logger()?.[level]({ module, ...fields }, message);
}

/**
 * For work that fails the same way on every round while the database is away: the first failure
 * is logged (warn, with the error's message, and the reason of an unreachable database), then
 * nothing until a round succeeds, which logs the recovery (info, with how many rounds failed).
 * With `outage`, only the failures it accepts are so quieted; every other one is logged.
 */
export function failureChanges(log: EventLog, messages: { failed: string; recovered: string },
  options: { outage?: (error: unknown) => boolean } = {}) {
  let failures = 0;
  const warn = (error: unknown) => {
    const e = error as { message?: unknown; reason?: unknown } | null;
    const err = e instanceof Error ? e.message : String(error);
    log(messages.failed, { err, ...(typeof e?.reason === 'string' && { reason: e.reason }) }, 'warn');
  };
  return {
    failed(error: unknown): void {
      // A failure that is not the outage (a race that cannot be settled, say) may be another each
      // round: each is logged, and none counts toward the outage's run.
      if (options.outage && !options.outage(error)) return warn(error);
      if (!failures++) warn(error);
    },
    succeeded(): void {
      if (!failures) return;
      log(messages.recovered, { failures }, 'info');
      failures = 0;
    },
  };
}
