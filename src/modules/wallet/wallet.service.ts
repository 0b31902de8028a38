// The wallet module's entry point: one per process. It owns the HTTP pools and the token cache
// (shared by the synchronous reserve and the delivery worker) and puts the module's parts behind
// one service: configuration (config/), the outbox writer (outbox/), delivery (delivery/) and the
// operator controls (controls/).
import type { Registry } from 'prom-client';
import type { Config } from '../../config.ts';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Pool, Queryable } from '../../db/pool.ts';
import { AppError } from '../../errors.ts';
import type { TenantService } from '../tenants/tenants.service.ts';
import { getWallet, setWallet, type SetWalletInput } from './config/wallet-config.service.ts';
import { createWalletControls } from './controls/controls.service.ts';
import { createWalletHttp } from './delivery/http-client.ts';
import { createWalletMetrics, type WalletMetrics } from './delivery/metrics.ts';
import { createReserver } from './delivery/reserve.ts';
import { createWalletWorker } from './delivery/worker.ts';
import { directSenderSlot } from './delivery/direct-send.ts';
import { enqueueWalletCalls } from './outbox/enqueue-batch.ts';
import { enqueueWalletCall, type WalletCallInput } from './outbox/enqueue.ts';
export type { WalletCallInput } from './outbox/enqueue.ts';
export { TakeFailed } from './delivery/reserve-release.ts';
export { EveryMemberFails, type TakeGroup } from './delivery/reserve-take.ts';
export type { OpenGroup } from './delivery/reserve.ts';

export type WalletSettings = Pick<Config,
  'WAGERLINE_WALLET_TIMEOUT_MS' | 'WAGERLINE_WALLET_LEASE_MS' | 'WAGERLINE_WALLET_POLL_MS' | 'WAGERLINE_WALLET_RESERVE_RETRIES'>
  & Partial<Pick<Config, 'WAGERLINE_WALLET_PLACEMENT_WINDOW_MS' | 'WAGERLINE_PRIVATE_NETWORK' | 'WAGERLINE_DB_CONNECT_TIMEOUT_MS' | 'WAGERLINE_DB_KEEPALIVE_MS'>>;

export interface WalletServiceDeps {
  db: Pool;
  box: SecretBox;
  tenants: TenantService;
  config: WalletSettings;
  clock?: () => Date;
  registry?: Registry;
  /** The database URL for LISTEN (omit: the worker polls only). */
  listenUrl?: string;
  log?: (message: string, fields?: Record<string, unknown>) => void;
}

export function createWalletService(deps: WalletServiceDeps) {
  const { db, box, config } = deps;
  const clock = deps.clock ?? (() => new Date());
  const anyAddress = config.WAGERLINE_PRIVATE_NETWORK === 'any';
  const http = createWalletHttp({ timeoutMs: config.WAGERLINE_WALLET_TIMEOUT_MS, clock, anyAddress });
  const controls = createWalletControls({ db, clock });
  const metrics: WalletMetrics | undefined = deps.registry ? createWalletMetrics(deps.registry, db, clock) : undefined;
  // A started worker sends the next call of each placement of this process at commit.
  const direct = directSenderSlot();

  return {
    http,
    metrics,
    clock,
    /** The tenant's wallet configuration without secrets, or null when it has none. */
    getWallet: (tenantId: string) => getWallet(db, tenantId),
    setWallet: (input: SetWalletInput) => setWallet({ db, box, tenants: deps.tenants, timeoutMs: config.WAGERLINE_WALLET_TIMEOUT_MS, anyAddress }, input),
    /** Queues a durable call in the caller's transaction (see outbox/enqueue.ts). */
    enqueue: (tx: Queryable, input: WalletCallInput) => enqueueWalletCall(tx, input, { clock }),
    /** Queues many durable calls in the caller's transaction, all or none, a bet's in array order. */
    enqueueMany: (tx: Queryable, inputs: readonly WalletCallInput[]) => enqueueWalletCalls(tx, inputs, { clock }),
    /**
     * Refreshes the outbox's planner statistics after a large enqueue (a race's settlement). Until
     * autovacuum gets to it, the statistics say nothing is pending and each claim walks every
     * pending call (240 ms per claim at 100,000 pending; 0.3 ms once analysed:
     * docs/performance-settlement.md).
     */
    refreshOutboxStatistics: async () => {
      await deps.db.query('ANALYZE wallet_calls');
    },
    reserve: createReserver({
      db, box, http, clock, metrics,
      leaseMs: config.WAGERLINE_WALLET_LEASE_MS,
      retries: config.WAGERLINE_WALLET_RESERVE_RETRIES,
      placementWindowMs: config.WAGERLINE_WALLET_PLACEMENT_WINDOW_MS ?? 60_000,
      sender: direct.sender,
    }),
    createWorker: (options: { batch?: number; listen?: boolean } = {}) => {
      if (config.WAGERLINE_WALLET_LEASE_MS <= config.WAGERLINE_WALLET_TIMEOUT_MS) {
        throw new AppError('bad_request', 'WAGERLINE_WALLET_LEASE_MS must exceed WAGERLINE_WALLET_TIMEOUT_MS');
      }
      const worker = createWalletWorker({
        db, box, http, clock, metrics,
        leaseMs: config.WAGERLINE_WALLET_LEASE_MS,
        pollMs: config.WAGERLINE_WALLET_POLL_MS,
        ...(options.listen !== false && deps.listenUrl && { listenUrl: deps.listenUrl }),
        ...(config.WAGERLINE_DB_CONNECT_TIMEOUT_MS && { connectTimeoutMs: config.WAGERLINE_DB_CONNECT_TIMEOUT_MS }),
        ...(config.WAGERLINE_DB_KEEPALIVE_MS && { keepAliveMs: config.WAGERLINE_DB_KEEPALIVE_MS }),
        ...(options.batch && { batch: options.batch }),
        ...(deps.log && { log: deps.log }),
      });
      return {
        ...worker,
        start: async () => {
          await worker.start();
          direct.use(worker.sender);
        },
        stop: async () => {
          direct.release(worker.sender);
          await worker.stop();
        },
      };
    },

    ...controls,
    close: () => http.close(),
  };
}

export type WalletService = ReturnType<typeof createWalletService>;
