// `wagerline serve`: check the port is free, open the runtime, build the app, listen, then start
// the background workers; shut down gracefully on SIGTERM/SIGINT (stop accepting, let in-flight
// requests finish, close the pool, stop the embedded database if this process started it), within
// WAGERLINE_SHUTDOWN_TIMEOUT_MS (src/shutdown.ts). A signal while starting stops it after the
// migration in progress. Every line on stderr is JSON (pino): the embedded database and the
// migrations log through it too.
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { MigrationCancelled } from './db/migrate.ts';
import { DatabaseUnavailable } from './db/pool.ts';
import { AppError } from './errors.ts';
import type { TenantView } from './modules/tenants/tenants.service.ts';
import { trackInFlight, type InFlight } from './http/in-flight.ts';
import { createRegistry } from './http/metrics.ts';
import { createLogger, eventLog, type Logger } from './log.ts';
import { openRuntime, StartupStopped, type Runtime } from './runtime.ts';
import { createShutdown, type Shutdown, type Stoppable } from './shutdown.ts';
import { listenProblem } from './tools/listen.ts';

export interface Server extends Stoppable {
  app: FastifyInstance;
  runtime: Runtime;
  url: string;
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

/**
 * Warnings at start naming the tenants whose time zone needs `tenant set-zone`: one line for zones
 * the database does not know (stored before creation checked it: their uploads and bets are
 * refused), one for zones it reads differently from Node.js (an abbreviation such as CET: taken,
 * but racing days may differ between uploads and placed bets). A failed check is a warning too:
 * serving goes on.
 */
async function warnOfFaultyZones(services: Runtime['services'], log: FastifyInstance['log']): Promise<void> {
  try {
    const { unknown, misread } = await services.tenants.tenantsWithFaultyZones();
    const listed = (tenants: TenantView[]) => ({ tenants: tenants.map((t) => ({ tenant_id: t.tenant_id, name: t.name, timezone: t.timezone, disabled: t.disabled })) });
    const count = (tenants: TenantView[]) => `${tenants.length} tenant${tenants.length === 1 ? ' has a time zone' : 's have time zones'}`;
    if (unknown.length) {
      log.warn(listed(unknown), `${count(unknown)} the database does not know: their uploads and their users' bets are refused ` +
        '(tenant_misconfigured) until `wagerline tenant set-zone <tenant_id> <zone>` sets a current name (docs/tenants.md)');
    }
    if (misread.length) {
      log.warn(listed(misread), `${count(misread)} the database and Node.js read differently (an abbreviation such as CET is a fixed offset to ` +
        'the database): racing days may differ between uploads and placed bets until `wagerline tenant set-zone <tenant_id> <zone>` sets ' +
        'a Region/City name (e.g. Europe/Paris, not CET; docs/tenants.md)');
    }
  } catch (error) {
    log.warn({ err: { message: (error as Error).message } }, 'could not check the tenants\' time zones');
  }
}

/** `shutdown`: a signal while starting stops the start (StartupStopped) after the migration in progress. */
export async function startServer(config: Config, log: Logger = createLogger(config.LOG_LEVEL), shutdown?: Pick<Shutdown, 'requested' | 'deadline'>): Promise<Server> {
  await checkPort(config.HOST, config.PORT);
  const registry = createRegistry();
  let app: FastifyInstance | undefined;
  const runtime = await openRuntime(config, {
    log,
    registry,
    events: eventLog(() => app?.log, 'wallet'),
    queryTimeoutMs: config.WAGERLINE_DB_QUERY_TIMEOUT_MS,
    ...(shutdown && { stop: shutdown.requested, cancel: shutdown.deadline }),
  });
  const { services } = runtime;
  let url: string;
  let inFlight: InFlight;
  try {
    await services.tokens.start();
    app = await buildApp({ config, db: runtime.database.pool, services, registry, logger: { stream: process.stderr } });
    inFlight = trackInFlight(app);
    // Listening comes before the background workers: a port taken since checkPort fails here, with nothing to undo but the runtime.
    url = await app.listen({ host: config.HOST, port: config.PORT });
  } catch (error) {
    await app?.close().catch(() => undefined);
    await runtime.close().catch(() => undefined);
    const problem = portProblem(error, config.HOST, config.PORT);
    throw problem ? new AppError('bad_request', problem) : error;
  }
  await warnOfFaultyZones(services, app.log.child({ module: 'tenants' }));
  // The wallet delivery worker (docs/wallet-delivery.md); any number of processes may run it.
  const worker = config.WAGERLINE_WALLET_WORKER === 'on'
    ? services.wallet.createWorker({ listen: true })
    : undefined;
  if (worker) {
    await worker.start();
    app.log.child({ module: 'wallet-worker' }).info({ workerId: worker.workerId }, 'wallet delivery worker started');
  }
  // Settles queued races (docs/settlement-running.md): results recorded through the admin API, and any
  // settlement a stopped process left half-way. Jobs are locked per batch, so every process may run it.
  const settler = services.settlement.startWorker({ pollMs: config.WAGERLINE_SETTLEMENT_POLL_MS });
  const started = app;
  const requests = inFlight;
  let stopping: Promise<void> | undefined;
  /** What the stop waits for now: the deadline's line names it. */
  let waitingFor = 'requests';
  const stop = () => {
    stopping ??= (async () => {
      await started.close();
      waitingFor = 'settlement';
      await settler.stop();
      waitingFor = 'wallet calls';
      await worker?.stop(); // lets calls in flight finish (each bounded) and records them
      waitingFor = 'database';
      await runtime.close();
    })();
    return stopping;
  };
  // The wallet calls in flight stay leased in the outbox and are sent again after their lease (same
  // transactionId); a placement cut short is released by the rescue; a settlement batch rolls back.
  const cut = () => {
    const open = { waitingFor, requests: requests.requests(), walletCallsInFlight: worker?.inFlight() ?? 0 };
    started.server.closeAllConnections();
    return open;
  };
  return { app: started, runtime, url, stop, cut };
}

/**
 * The serve command: `{"url", "pid"}` on stdout once listening. Anything that stops it from
 * starting — a wrong setting (exit 2), a taken port, an unreachable database (exit 1) — is one
 * JSON log line at level fatal, like every other line it writes on stderr. A signal while it
 * starts stops it before it serves (exit 0), or at the shutdown deadline (exit 1).
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
  // Signals are handled from the start: Node's default would kill a start mid-migration.
  const shutdown = createShutdown({ log, deadlineMs: config.WAGERLINE_SHUTDOWN_TIMEOUT_MS, graceMs: config.WAGERLINE_DB_CONNECT_TIMEOUT_MS + 1000 });
  shutdown.listen();
  try {
    const server = await startServer(config, log, shutdown);
    if (shutdown.serving(server)) process.stdout.write(`${JSON.stringify({ url: server.url, pid: process.pid })}\n`);
  } catch (error) {
    if (error instanceof StartupStopped) {
      log.info({ signal: shutdown.signal(), applied: error.applied, pending: error.pending }, 'stopped before serving');
      process.exit(0);
    }
    if (error instanceof MigrationCancelled) {
      log.fatal({ signal: shutdown.signal() }, `serve did not start: the shutdown deadline (${config.WAGERLINE_SHUTDOWN_TIMEOUT_MS} ms) passed `
        + `during migration ${error.migration}: it was cancelled and rolled back; it is applied at the next start`);
      process.exit(1);
    }
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
