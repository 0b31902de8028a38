// The composition root: the one function that builds every service of wagerline from the
// configuration, the database pool, the secret box and the clock. `serve`, every CLI command, the
// tests and the benchmarks build their services here; no module builds another module's service.
// Each module receives the services it talks to as arguments (tokens read clients through the
// tenants service, the wallet checks tenants through it too; frontend users read tenants too;
// betting reports the bets it takes through the intake, which owns the reporting store).
import type { EventLog } from './log.ts';
import { Gauge, type Registry } from 'prom-client';
import type { Config } from './config.ts';
import type { SecretBox } from './crypto/secret-box.ts';
import type { Pool } from './db/pool.ts';
import { createCursorCodec } from './http/cursor.ts';
import { createTokenService } from './modules/auth/tokens.service.ts';
import { cachedClientLookup, createBackofficeService } from './modules/backoffice/backoffice.service.ts';
import { createBackofficeReads } from './modules/betting/backoffice-reads.ts';
import { createBetUpdates } from './modules/betting/bet-updates.ts';
import { createBetActions } from './modules/betting/bet-actions.ts';
import { createBettingService } from './modules/betting/betting.service.ts';
import { createSettlementService, poolsInPlay, productsInPlay, queueRaceSettlement } from './modules/betting/settlement.service.ts';
import { createUserAuthService, type UserAuthServiceDeps } from './modules/auth/user-auth.service.ts';
import { createCatalogueService } from './modules/catalogue/catalogue.service.ts';
import { createIntakeService } from './modules/intake/intake.service.ts';
import { createReportsService } from './modules/reports/reports.service.ts';
import { createTenantOverview } from './modules/tenants/tenant-overview.ts';
import { createTenantService } from './modules/tenants/tenants.service.ts';
import { createWalletService } from './modules/wallet/wallet.service.ts';

export interface ServiceDeps {
  config: Config;
  db: Pool;
  box: SecretBox;
  clock?: () => Date;
  /** Where the wallet publishes its metrics (serve's /metrics); omit for none. */
  registry?: Registry;
  /** The database URL the wallet worker and live bet updates LISTEN on; omit and the worker only
   *  polls, and subscriptions hear nothing of other processes. */
  listenUrl?: string;
  /** Warnings (and recoveries) of background work (the wallet worker), e.g. into the app's logger. */
  log?: EventLog;
  /** Frontend users' JWKS and configuration cache timings (tests shorten them). */
  userAuth?: Pick<UserAuthServiceDeps, 'jwksCooldownMs' | 'jwksTimeoutMs' | 'configTtlMs' | 'verifiedTokenTtlMs'>;
}

export function createServices(deps: ServiceDeps) {
  const { config, db, box } = deps;
  const clock = deps.clock ?? (() => new Date());
  const tenants = createTenantService({ db });
  const tokens = createTokenService({
    db, box, clock, clients: tenants,
    ttlSeconds: config.WAGERLINE_TOKEN_TTL_SECONDS,
    refreshSeconds: config.WAGERLINE_AUTH_REFRESH_SECONDS,
    ...(deps.log && { log: deps.log }),
  });
  // A final result, an abandonment or a scratching queues its race for settlement in its own transaction.
  const catalogue = createCatalogueService({
    db, clock, onRaceChange: (tx, change) => queueRaceSettlement(tx, change, clock()),
    // Declared below; called only once both exist.
    onMeetingsWritten: (tx, meetingIds, previousDays) => intake.refreshRacingDays(tx, meetingIds, previousDays),
    productsInPlay, poolsInPlay,
  });
  const users = createUserAuthService({ db, tenants, clock, verifiedTokenTtlMs: config.WAGERLINE_USER_TOKEN_CACHE_SECONDS * 1000,
    anyAddress: config.WAGERLINE_PRIVATE_NETWORK === 'any',
    ...(deps.log && { log: deps.log }), ...deps.userAuth });
  // Page cursors are signed with a key derived from WAGERLINE_SECRET_KEY (src/http/cursor.ts).
  const cursors = createCursorCodec(box.derive('cursor'));
  const intake = createIntakeService({ db, config, clock, cursors });
  const reports = createReportsService({ db });
  const wallet = createWalletService({
    db, box, tenants, config, clock,
    ...(deps.registry && { registry: deps.registry }),
    ...(deps.listenUrl && { listenUrl: deps.listenUrl }),
    ...(deps.log && { log: deps.log }),
  });
  // Longer than any placement can take: its reserve with every retry, the placement window, a lease.
  const interruptedAfterMs = config.WAGERLINE_WALLET_TIMEOUT_MS * (config.WAGERLINE_WALLET_RESERVE_RETRIES + 1)
    + config.WAGERLINE_WALLET_PLACEMENT_WINDOW_MS + config.WAGERLINE_WALLET_LEASE_MS;
  // Live bet updates: one LISTEN connection per process (opened by serve, or by the first subscriber).
  const betUpdates = createBetUpdates({ ...(deps.listenUrl && { listenUrl: deps.listenUrl }), connectTimeoutMs: config.WAGERLINE_DB_CONNECT_TIMEOUT_MS,
    keepAliveMs: config.WAGERLINE_DB_KEEPALIVE_MS, ...(deps.log && { log: deps.log }) });
  // One gauge per registry: tests build several services on one registry.
  if (deps.registry && !deps.registry.getSingleMetric('bet_update_subscribers')) {
    new Gauge({
      name: 'bet_update_subscribers', help: 'Live bet subscriptions (betUpdated, myBetUpdated) open in this process',
      registers: [deps.registry], collect() { this.set(betUpdates.subscribers()); },
    });
  }
  // A take starts early enough to commit before its bet could read as interrupted (take-bet.ts).
  const take = { startWithinMs: interruptedAfterMs - config.WAGERLINE_WALLET_LEASE_MS, lockTimeoutMs: config.WAGERLINE_PLACEMENT_LOCK_TIMEOUT_MS };
  const betting = createBettingService({ db, catalogue, wallet, tenants, clock, cursors, reporting: intake, interruptedAfterMs, take, updates: betUpdates });
  const settlement = createSettlementService({ db, clock, catalogue, wallet, reporting: intake, batchSize: config.WAGERLINE_SETTLEMENT_BATCH, ...(deps.log && { log: deps.log }) });
  const bets = createBetActions({ db, clock, wallet, reporting: intake, interruptedAfterMs, raceFacts: (races, tx) => catalogue.lockedRaceFacts(races, tx) });
  // The back-office reads bets through the betting module, and decides who sees which tenants.
  const backofficeReads = createBackofficeReads({ db, clock, catalogue, wallet, interruptedAfterMs });
  // x-api-key names the back-office client on every request: kept a few seconds (backoffice.service.ts).
  const backofficeClient = cachedClientLookup((apiKey) => tenants.backofficeClient(apiKey), { ttlMs: config.WAGERLINE_BACKOFFICE_CLIENT_CACHE_SECONDS * 1000, clock });
  const backoffice = createBackofficeService({ tenants: { backofficeClient }, tokens, reads: backofficeReads, bets, updates: betUpdates });
  // tenant show: the tenant with its clients, wallet, frontend user auth and limits.
  const tenantOverview = createTenantOverview({ tenants, wallet, users, betting });
  return {
    config, clock, tenants, tenantOverview, tokens, users, catalogue, intake, reports, wallet, betting, settlement, bets, backofficeReads, backoffice, betUpdates,
    /** Stops background refreshes, the bet updates' LISTEN and the wallet's HTTP pools (not the database pool). */
    async close(): Promise<void> {
      tokens.stop();
      await betUpdates.close();
      await wallet.close();
    },
  };
}

export type Services = ReturnType<typeof createServices>;
