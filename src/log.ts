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
