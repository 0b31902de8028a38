// `wagerline serve`: check the port is free, open the runtime, build the app, listen, then start
// the background workers; shut down gracefully on SIGTERM/SIGINT (stop accepting, let in-flight
// requests finish, close the pool, stop the embedded database if this process started it). Every
// line on stderr is JSON (pino): the embedded database and the migrations log through it too.
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { DatabaseUnavailable } from './db/pool.ts';
import { AppError } from './errors.ts';
import { createRegistry } from './http/metrics.ts';
import { createLogger, type Logger } from './log.ts';
import { openRuntime, type Runtime } from './runtime.ts';
import { listenProblem } from './tools/listen.ts';

export interface Server {
  app: FastifyInstance;
  runtime: Runtime;
  url: string;
  stop(): Promise<void>;
}

/** Why the HTTP port cannot be had, in one line (undefined for other errors). */
function portProblem(error: unknown, host: string, port: number): string | undefined {
  return listenProblem(error, host, port, { port: 'set PORT', host: 'set HOST', inUseHint: 'another serve?' });
}

/** Binds HOST:PORT for a moment: a taken port fails here, before the database or any worker starts. */
async function checkPort(host: string, port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = net.createServer().once('error', reject).listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  }).catch((error: unknown) => {
    throw new AppError('bad_request', portProblem(error, host, port) ?? `cannot listen on ${host}:${port}: ${(error as Error).message}`);
  });
}

export async function startServer(config: Config, log: Logger = createLogger(config.LOG_LEVEL)): Promise<Server> {
  await checkPort(config.HOST, config.PORT);
  const registry = createRegistry();
  let app: FastifyInstance | undefined;
  const runtime = await openRuntime(config, {
    log,
    registry,
    events: (message, fields) => app?.log.warn({ module: 'wallet', ...fields }, message),
  });
  const { services } = runtime;
  let url: string;
  try {
    await services.tokens.start();
    app = await buildApp({ config, db: runtime.database.pool, services, registry, logger: { stream: process.stderr } });
    // Listening comes before the background workers: a port taken since checkPort fails here, with nothing to undo but the runtime.
    url = await app.listen({ host: config.HOST, port: config.PORT });
  } catch (error) {
    await app?.close().catch(() => undefined);
    await runtime.close().catch(() => undefined);
    const problem = portProblem(error, config.HOST, config.PORT);
    throw problem ? new AppError('bad_request', problem) : error;
  }
  // The wallet delivery worker (docs/wallet.md); any number of processes may run it.
  const worker = config.WAGERLINE_WALLET_WORKER === 'on'
    ? services.wallet.createWorker({ listen: true })
    : undefined;
  if (worker) {
    await worker.start();
    app.log.child({ module: 'wallet-worker' }).info({ workerId: worker.workerId }, 'wallet delivery worker started');
  }
  // Settles queued races (docs/settlement.md): results recorded through the admin API, and any
  // settlement a stopped process left half-way. Jobs are locked per batch, so every process may run it.
  const settler = services.settlement.startWorker({ pollMs: config.WAGERLINE_SETTLEMENT_POLL_MS });
  const started = app;
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      await started.close();
      await settler.stop();
      await worker?.stop(); // lets calls in flight finish (each bounded) and records them
      await runtime.close();
    })();
    return stopping;
  };
  return { app: started, runtime, url, stop };
}

export function stopOnSignals(server: Server): void {
  let stopping = false;
  // Every signal is handled, not just the first: left without a listener, a second SIGINT or
  // SIGTERM would kill the process mid-shutdown (Node's default), and one often comes — `npm
  // start` relays Ctrl-C to serve, which the terminal already sent it. SIGKILL stops it at once.
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      server.app.log.info({ signal }, 'already shutting down');
      return;
    }
    stopping = true;
    server.app.log.info({ signal }, 'shutting down');
    server.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        server.app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

/**
 * The serve command: `{"url", "pid"}` on stdout once listening. Anything that stops it from
 * starting — a wrong setting (exit 2), a taken port, an unreachable database (exit 1) — is one
 * JSON log line at level fatal, like every other line it writes on stderr.
 */
export async function serve(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    createLogger('info').fatal({ variable: (error as ConfigError).variable }, (error as Error).message);
    process.exit(error instanceof ConfigError ? 2 : 1);
  }
  const log = createLogger(config.LOG_LEVEL);
  try {
    const server = await startServer(config, log);
    stopOnSignals(server);
    process.stdout.write(`${JSON.stringify({ url: server.url, pid: process.pid })}\n`);
  } catch (error) {
    if (error instanceof ConfigError) {
      log.fatal({ variable: error.variable }, `serve did not start: ${error.message}`);
      process.exit(2);
    }
    const e = error as Error & { code?: string };
    const message = error instanceof DatabaseUnavailable ? `cannot reach the database (${error.reason})`
      : error instanceof AppError ? e.message
        : e.code === 'ECONNREFUSED' ? `cannot reach the database (${e.message})` : e.message;
    log.fatal({ ...(error instanceof AppError ? {} : { err: { type: e.name, message: e.message, code: e.code } }) }, `serve did not start: ${message}`);
    process.exit(1);
  }
}
