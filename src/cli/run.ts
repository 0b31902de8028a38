// Helpers shared by the CLI commands: one JSON object on stdout, logs (JSON lines, at LOG_LEVEL)
// and errors on stderr. Every failure is one line "wagerline: <what is wrong>" (a usage error's
// followed by the --help hint), and one exit-code convention for every command (README, Command line):
//   2  a usage error: a bad or missing argument or option, an unknown option, an unreadable file,
//      a wrong setting; nothing was done;
//   1  a refused or failed operation: the service said no (not found, conflict, a value it
//      rejects), the database or a remote was unreachable, or an internal error;
//   3  wallet-check only: nothing answers at --url.
import { targetDate } from '../racing/redate.ts';
import { InvalidArgumentError } from 'commander';
import { ConfigError, loadConfig, type Config } from '../config.ts';
import { DatabaseUnavailable } from '../db/pool.ts';
import { AppError } from '../errors.ts';
import { createLogger } from '../log.ts';
import { MAX_ACTION_CENTS, parseDollars } from '../racing/money.ts';
import { isUuid } from '../racing/values.ts';
import { openRuntime, type Runtime } from '../runtime.ts';
import { ListenError, listenProblem } from '../tools/listen.ts';

/** Exit codes of every command (see above). */
export const EXIT = { refused: 1, usage: 2 } as const;

/** The line printed after a usage error (exit 2): usage is what a refused or failed operation is not about. */
export const HELP_HINT = '(run with --help for usage)';

export function emit(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/** One error line, the --help hint after a usage error, and the exit. */
export function fail(message: string, exitCode: number = EXIT.refused): never {
  process.stderr.write(`wagerline: ${oneLine(message)}\n${exitCode === EXIT.usage ? `${HELP_HINT}\n` : ''}`);
  process.exit(exitCode);
}

/** A usage error: a bad argument or file; exit 2. */
export function usage(message: string): never {
  return fail(message, EXIT.usage);
}

const oneLine = (message: string) => message.replace(/\s*\n\s*/g, ' ').trim();

/** An error raised by Node or a driver (a system call, PostgreSQL, a bug), not one of ours. */
function isForeign(error: unknown): boolean {
  if (!(error instanceof Error)) return true;
  const e = error as Error & { code?: unknown; errno?: unknown; syscall?: unknown; severity?: unknown };
  if (e.syscall !== undefined || e.errno !== undefined || e.severity !== undefined) return true;
  if (typeof e.code === 'string') return true;
  return error.constructor !== Error;
}

/** How the commands that listen (wallet-sandbox, dev-jwks) choose their port and host. */
const CLI_LISTEN = { port: 'choose another with --port', host: 'choose another with --host' };

/**
 * An error in our words. Our own errors keep their message; a port or host that cannot be listened
 * on is said so, naming both; a database that cannot be reached is said so; anything else from
 * Node or a driver becomes "internal error" (its text goes to the log at LOG_LEVEL=debug, never to
 * the error line).
 */
export function describeError(error: unknown): string {
  // Our words only: a refused connection's reason is the driver's text (it names the host).
  if (error instanceof DatabaseUnavailable) return `cannot reach the database (${error.timedOut ? `${error.reason}; ` : ''}is DATABASE_URL right, is PostgreSQL running?)`;
  if (error instanceof AppError || error instanceof ConfigError) return error.message;
  // Before the database's codes: a --host that does not resolve fails with ENOTFOUND too.
  if (error instanceof ListenError) return listenProblem(error.cause, error.host, error.port, CLI_LISTEN) ?? error.message;
  const e = error as { code?: string; message?: string; syscall?: string; address?: string; port?: number };
  // A listen call not wrapped in a ListenError still says which port and host (its syscall tells).
  if (e?.syscall === 'listen' && typeof e.address === 'string' && typeof e.port === 'number') {
    const problem = listenProblem(error, e.address, e.port, CLI_LISTEN);
    if (problem) return problem;
  }
  if (e?.code === 'ECONNREFUSED' || e?.code === 'ENOTFOUND' || e?.code === 'EAI_AGAIN') return 'cannot reach the database (is DATABASE_URL right, is PostgreSQL running?)';
  if (e?.code === '28P01' || e?.code === '28000' || e?.code === '3D000') return 'cannot use the database at DATABASE_URL (authentication failed, no such role or no such database)';
  if (!isForeign(error)) return (error as Error).message;
  if (process.env.LOG_LEVEL === 'debug' || process.env.LOG_LEVEL === 'trace') {
    createLogger('debug').debug({ err: { message: e?.message, code: e?.code, stack: (error as Error)?.stack } }, 'internal error');
  }
  return 'internal error (run with LOG_LEVEL=debug for details)';
}

/** The exit code of a failed operation: 2 for a wrong setting, 1 otherwise. */
export function exitCodeOf(error: unknown): number {
  return error instanceof ConfigError ? EXIT.usage : EXIT.refused;
}

export function config(): Config {
  try {
    return loadConfig();
  } catch (error) {
    return fail(describeError(error), EXIT.usage);
  }
}

/** Opens the runtime (database migrated), runs the command, prints its result, closes. */
export async function withRuntime<T>(fn: (runtime: Runtime) => Promise<T>): Promise<void> {
  const cfg = config();
  let runtime: Runtime | undefined;
  let failure: unknown;
  let failed = false;
  try {
    runtime = await openRuntime(cfg, { log: createLogger(cfg.LOG_LEVEL) });
    emit(await fn(runtime));
  } catch (error) {
    failed = true;
    failure = error;
  } finally {
    await runtime?.close().catch(() => undefined);
  }
  if (failed) {
    if (failure instanceof UsageError) usage(failure.message);
    fail(describeError(failure), exitCodeOf(failure));
  }
}

/** A usage error found inside an action (an unreadable file): exit 2. */
export class UsageError extends Error {}

export function list(value: string): string[] {
  return value.split(',').map((s) => s.trim()).filter(Boolean);
}

// Argument parsers for commander: a bad value is a usage error naming the argument, before any
// database is opened. Commander prefixes the argument's name and value.

/**
 * A UUID (tenant, bet, user, wallet call ids), in lower case: the form the database and the admin
 * API answer with, so a command echoes the id as every other path shows it.
 */
export function uuid(value: string): string {
  if (!isUuid(value.trim())) throw new InvalidArgumentError('must be a UUID (like 3f1c2a9e-0000-4000-8000-000000000001)');
  return value.trim().toLowerCase();
}

/** A day to move sample data to: "today" (UTC) or YYYY-MM-DD (racing/redate.ts). */
export function dateOption(value: string): string {
  const date = targetDate(value.trim(), new Date());
  if (!date) throw new InvalidArgumentError('must be "today" or a date YYYY-MM-DD');
  return date;
}

/** A comma-separated list of UUIDs, or "none". */
export function uuidList(value: string): string[] {
  const items = list(value);
  if (items.length === 1 && items[0]!.toLowerCase() === 'none') return ['none'];
  const bad = items.find((i) => !isUuid(i));
  if (items.length === 0 || bad !== undefined) throw new InvalidArgumentError(`must be UUIDs separated by commas, or none${bad ? ` ("${bad}" is not a UUID)` : ''}`);
  return items;
}

/** A whole number from min to max. */
export function integer(min: number, max: number) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) throw new InvalidArgumentError(`must be a whole number from ${min} to ${max}`);
    return Number(value);
  };
}

/** An amount in dollars as a bet's cash out or adjustment takes it: above 0, below 10^11, at most two decimals. */
export function amount(value: string): string {
  const cents = parseDollars(value);
  if (cents === undefined || cents <= 0n || cents >= MAX_ACTION_CENTS) {
    throw new InvalidArgumentError('must be an amount in dollars above 0 and below 100,000,000,000 with at most two decimals, like 12.50');
  }
  return value.trim();
}

/** A file's text; a file that cannot be read is a usage error naming it. */
export async function readText(file: string): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(fileError(file, error));
  }
}

/** Why a file cannot be read, in our words. */
export function fileError(file: string, error: unknown): string {
  const code = (error as { code?: string }).code;
  const why = code === 'ENOENT' ? 'no such file'
    : code === 'EACCES' || code === 'EPERM' ? 'permission denied'
      : code === 'EISDIR' ? 'is a directory, not a file'
        : 'cannot be read';
  return `cannot read ${file}: ${why}`;
}

/** The "Example:" section of a command's --help, as run in the checkout (./bin/wagerline: npm ci puts no wagerline on PATH). */
export function example(...lines: string[]): string {
  return `\nExample:\n${lines.map((l) => `  $ ${l.replace(/^wagerline /, './bin/wagerline ')}`).join('\n')}\n`;
}
