// `wagerline serve`: open the runtime, build the app, listen, and shut down gracefully on
// SIGTERM/SIGINT (stop accepting, let in-flight requests finish, close the pool, stop the
// embedded database if this process started it).
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { createRegistry } from './http/metrics.ts';
import { openRuntime, type Runtime } from './runtime.ts';

export interface Server {
  app: FastifyInstance;
  runtime: Runtime;
  url: string;
  stop(): Promise<void>;
}

export async function startServer(config: Config): Promise<Server> {
  const registry = createRegistry();
  let app: FastifyInstance | undefined;
  const runtime = await openRuntime(config, {
    log: (line) => process.stderr.write(`${line.trimEnd()}\n`),
    registry,
    events: (message, fields) => app?.log.warn({ module: 'wallet', ...fields }, message),
  });
  const { services } = runtime;
  await services.tokens.start();
  // Live bet updates (subscriptions): this process's one LISTEN bet_updates connection, in place
  // before the first client connects; it reconnects on its own if it fails.
  await services.betUpdates.start().catch((error: unknown) => process.stderr.write(`bet updates: LISTEN failed, retrying: ${String(error)}\n`));
  app = await buildApp({ config, db: runtime.database.pool, services, registry, logger: { stream: process.stderr } });
  // The wallet delivery worker (docs/wallet.md); any number of processes may run it.
  const worker = config.WAGERLINE_WALLET_WORKER === 'on'
    ? services.wallet.createWorker({ listen: true })
    : undefined;
  if (worker) {
    const log = app.log.child({ module: 'wallet-worker' });
    await worker.start();
    log.info({ workerId: worker.workerId }, 'wallet delivery worker started');
  }
  // Settles queued races (docs/settlement.md): results recorded through the admin API, and any
  // settlement a stopped process left half-way. Jobs are locked per batch, so every process may run it.
  const settler = services.settlement.startWorker({ pollMs: config.WAGERLINE_SETTLEMENT_POLL_MS });
  const url = await app.listen({ host: config.HOST, port: config.PORT });
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      await app.close();
      await settler.stop();
      await worker?.stop(); // lets calls in flight finish (each bounded) and records them
      await runtime.close();
    })();
    return stopping;
  };
  return { app, runtime, url, stop };
}

export function stopOnSignals(server: Server): void {
  const onSignal = (signal: NodeJS.Signals) => {
    server.app.log.info({ signal }, 'shutting down');
    server.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        server.app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}
