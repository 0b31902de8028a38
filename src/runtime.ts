// What every entry point needs: validated configuration, the database (migrated), the secret box
// and every service, built by the composition root (services.ts). serve and the CLI commands open
// it the same way.
import type { Registry } from 'prom-client';
import type { Config } from './config.ts';
import { createSecretBox, loadSecretKey, type SecretBox } from './crypto/secret-box.ts';
import { openDatabase, type Database } from './db/database.ts';
import { migrate } from './db/migrate.ts';
import { silentLogger, type Logger } from './log.ts';
import { ensureSigningKey } from './modules/auth/signing-keys.ts';
import { rebindWalletSecrets } from './modules/wallet/config/rebind-secrets.ts';
import { rebindReserveTokens } from './modules/wallet/delivery/reserve-token.ts';
import { createServices, type ServiceDeps, type Services } from './services.ts';

export interface Runtime {
  config: Config;
  database: Database;
  box: SecretBox;
  services: Services;
  applied: string[];
  close(): Promise<void>;
}

export interface RuntimeOptions {
  /** Where the embedded database and the migration runner log (default: nowhere). */
  log?: Logger;
  registry?: Registry;
  /** Warnings of background work (the wallet worker). */
  events?: ServiceDeps['log'];
  /** serve's stop (its first SIGTERM or SIGINT): the migration in progress commits, then StartupStopped. */
  stop?: AbortSignal;
  /** serve's shutdown deadline: the migration in progress is rolled back (MigrationCancelled). */
  cancel?: AbortSignal;
  /** Bound on each statement of the pool (serve's WAGERLINE_DB_QUERY_TIMEOUT_MS; CLI commands have none). */
  queryTimeoutMs?: number;
}

/** A stop asked while the runtime opened: nothing was left running; `pending` migrations wait for the next start. */
export class StartupStopped extends Error {
  constructor(readonly applied: string[], readonly pending: string[]) {
    super('stopped before serving');
  }
}

export async function openRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const log = options.log ?? silentLogger;
  const database = await openDatabase(config, log, { ...(options.queryTimeoutMs !== undefined && { queryTimeoutMs: options.queryTimeoutMs }) });
  try {
    const { applied, pending } = await migrate(database.url, log, {
      connectTimeoutMs: config.WAGERLINE_DB_CONNECT_TIMEOUT_MS, keepAliveMs: config.WAGERLINE_DB_KEEPALIVE_MS,
      ...(options.stop && { stop: options.stop }), ...(options.cancel && { cancel: options.cancel }),
    });
    if (options.stop?.aborted) throw new StartupStopped(applied, pending);
    const box = createSecretBox(loadSecretKey(config));
    await ensureSigningKey(database.pool, box);
    // Once per database: the wallet secrets sealed before they were bound to their tenant are bound,
    // then the user tokens of the reserves still in flight, each to its call.
    const { rebound, unreadable } = await rebindWalletSecrets(database.pool, box);
    if (rebound) log.info({ module: 'wallet', rebound }, 'wallet secrets bound to their tenant, column and URL');
    if (unreadable.length) log.warn({ module: 'wallet', tenants: unreadable }, 'wallet secrets sealed under another WAGERLINE_SECRET_KEY left unbound: set these wallets again');
    const tokens = await rebindReserveTokens(database.pool, box);
    if (tokens.rebound) log.info({ module: 'wallet', rebound: tokens.rebound }, 'user tokens of reserves in flight bound to their call');
    if (tokens.unreadable.length) {
      log.warn({ module: 'wallet', calls: tokens.unreadable }, 'user tokens of reserves sealed under another WAGERLINE_SECRET_KEY left unbound: '
        + 'these reserves are parked for an operator (wallet resolve)');
    }
    const services = createServices({
      config, db: database.pool, box, listenUrl: database.url,
      ...(options.registry && { registry: options.registry }),
      ...(options.events && { log: options.events }),
    });
    return {
      config,
      database,
      box,
      services,
      applied,
      close: async () => {
        await services.close();
        await database.close();
      },
    };
  } catch (error) {
    await database.close().catch(() => undefined);
    throw error;
  }
}
