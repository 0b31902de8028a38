// Helpers shared by the CLI commands: one JSON object on stdout, logs (JSON lines, at LOG_LEVEL)
// and errors on stderr, a one-line error and a non-zero exit for anything wrong.
import { ConfigError, loadConfig, type Config } from '../config.ts';
import { AppError } from '../errors.ts';
import { createLogger } from '../log.ts';
import { openRuntime, type Runtime } from '../runtime.ts';

export function emit(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

export function fail(message: string, exitCode = 1): never {
  process.stderr.write(`wagerline: ${message}\n`);
  process.exit(exitCode);
}

export function describeError(error: unknown): string {
  if (error instanceof AppError || error instanceof ConfigError) return error.message;
  const e = error as { code?: string; message?: string };
  if (e.code === 'ECONNREFUSED') return `cannot reach the database (${e.message})`;
  return e.message ?? String(error);
}

export function config(): Config {
  try {
    return loadConfig();
  } catch (error) {
    return fail(describeError(error), 2);
  }
}

/** Opens the runtime (database migrated), runs the command, prints its result, closes. */
export async function withRuntime<T>(fn: (runtime: Runtime) => Promise<T>): Promise<void> {
  const cfg = config();
  let runtime: Runtime | undefined;
  try {
    runtime = await openRuntime(cfg, { log: createLogger(cfg.LOG_LEVEL) });
    emit(await fn(runtime));
  } catch (error) {
    process.exitCode = 1;
    process.stderr.write(`wagerline: ${describeError(error)}\n`);
  } finally {
    await runtime?.close().catch(() => undefined);
  }
}

export function list(value: string): string[] {
  return value.split(',').map((s) => s.trim()).filter(Boolean);
}

/** The "Example:" section of a command's --help. */
export function example(...lines: string[]): string {
  return `\nExample:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;
}
