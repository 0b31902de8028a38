// `wagerline serve`: open the runtime, build the app, listen, and shut down gracefully on
// SIGTERM/SIGINT (stop accepting, let in-flight requests finish, close the pool, stop the
// embedded database if this process started it).
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { openRuntime, type Runtime } from './runtime.ts';

export interface Server {
  app: FastifyInstance;
  runtime: Runtime;
  url: string;
  stop(): Promise<void>;
}

export async function startServer(config: Config): Promise<Server> {
  const runtime = await openRuntime(config, (line) => process.stderr.write(`${line.trimEnd()}\n`));
  await runtime.tokens.start();
  const app = await buildApp({
    config,
    db: runtime.database.pool,
    tokens: runtime.tokens,
    logger: { stream: process.stderr },
  });
  const url = await app.listen({ host: config.HOST, port: config.PORT });
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      await app.close();
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
