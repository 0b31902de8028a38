// A wallet test bench: a fresh database with one tenant, the reference wallet sandbox on
// 127.0.0.1, a wallet service with a test clock, and a worker driven by drain().
import { randomBytes, randomUUID } from 'node:crypto';
import { Registry } from 'prom-client';
import { createSecretBox } from '../src/crypto/secret-box.ts';
import { withTransaction } from '../src/db/pool.ts';
import type { WalletCallInput } from '../src/modules/wallet/outbox/enqueue.ts';
import type { WalletSettings } from '../src/modules/wallet/wallet.service.ts';
import type { ServiceDeps } from '../src/services.ts';
import { startWalletSandbox } from '../src/tools/wallet-sandbox/index.ts';
import type { SandboxOptions, WalletSandbox } from '../src/tools/wallet-sandbox/types.ts';
import { testClock, testServices } from './helpers/app.ts';
import { freshDatabase, type TestDatabase } from './helpers/db.ts';

export const CLIENT = { clientId: 'wagerline-test', clientSecret: 'sandbox-secret-123' };

export interface FixtureOptions {
  sandbox?: Partial<SandboxOptions>;
  settings?: Partial<WalletSettings>;
  concurrency?: number;
  amountUnit?: 'dollars' | 'cents';
  signingSecret?: string;
  /** The wallet takes this API key (header x-api-key) instead of the client credentials. */
  apiKey?: string;
}

export async function walletFixture(options: FixtureOptions = {}) {
  const db = await freshDatabase();
  const key = randomBytes(32);
  const box = createSecretBox(key);
  const clock = testClock();
  const tenants = testServices(db, box).tenants;
  const tenant = await tenants.createTenant({ name: 'Wallet Test' });
  const sandbox = await startWalletSandbox({
    auth: options.apiKey ? { kind: 'api_key', apiKey: options.apiKey } : { kind: 'client_credentials', ...CLIENT },
    amountUnit: options.amountUnit ?? 'dollars',
    ...options.sandbox,
  });
  const settings: WalletSettings = {
    WAGERLINE_WALLET_TIMEOUT_MS: 2000,
    WAGERLINE_WALLET_LEASE_MS: 5000,
    WAGERLINE_WALLET_POLL_MS: 1000,
    WAGERLINE_WALLET_RESERVE_RETRIES: 2,
    ...options.settings,
  };
  const registry = new Registry();
  /** The services of one more process on the same database. */
  const services = (log?: ServiceDeps['log']) => testServices(db, box, { settings, clock, registry, ...(log && { log }) });
  const main = services();
  const { wallet } = main;
  await wallet.setWallet({
    tenantId: tenant.tenant_id, url: sandbox.url,
    ...(options.apiKey ? { auth: 'api_key' as const, apiKey: options.apiKey } : { auth: 'client_credentials' as const, ...CLIENT }),
    concurrency: options.concurrency ?? 20, amountUnit: options.amountUnit ?? 'dollars',
    ...(options.signingSecret && { signingSecret: options.signingSecret }),
  });
  const worker = wallet.createWorker({ listen: false });
  const tenantId = tenant.tenant_id;

  return {
    db, key, box, clock, tenantId, sandbox, wallet, worker, registry, settings, services, tenants,
    /** Enqueues calls, each in its own transaction (as separate state changes would). */
    async enqueue(...inputs: Omit<WalletCallInput, 'tenantId'>[]) {
      const out = [];
      for (const input of inputs) out.push(await withTransaction(db.pool, (tx) => wallet.enqueue(tx, { tenantId, ...input })));
      return out;
    },
    takenBet: (userId?: string) => takenBet(sandbox, userId),
    /** An adjustment credit (`credit` below) of a bet of its own, taken first (takenBet). */
    async creditOfTakenBet(amount = '1.00', userId?: string) {
      const bet = await takenBet(sandbox, userId);
      return credit(bet.betId, bet.userId, amount);
    },
    async call(transactionId: string) {
      const { rows } = await db.pool.query('SELECT * FROM wallet_calls WHERE transaction_id = $1', [transactionId]);
      return rows[0];
    },
    async attempts(transactionId: string) {
      const { rows } = await db.pool.query('SELECT * FROM wallet_call_attempts WHERE transaction_id = $1 ORDER BY attempt', [transactionId]);
      return rows;
    },
    /** A worker of its own (a second process, in effect), with its log captured. */
    loggedWorker() {
      const logs: Array<{ message: string; fields?: Record<string, unknown> }> = [];
      const service = services((message, fields) => logs.push({ message, ...(fields && { fields }) })).wallet;
      return { logs, service, worker: service.createWorker({ listen: false }) };
    },
    async close() {
      await worker.stop();
      await main.close();
      await sandbox.close();
      await db.drop();
    },
  };
}

export type WalletFixture = Awaited<ReturnType<typeof walletFixture>>;

/**
 * A bet the sandbox holds as taken, reserved and confirmed for 1.00 (seedBets: as wagerline's reserve
 * and confirm leave it), for a credit to act on: the sandbox refuses a credit or debit of a bet it
 * never reserved, as a real wallet would.
 */
export async function takenBet(sandbox: WalletSandbox, userId: string = randomUUID()): Promise<{ betId: string; userId: string }> {
  const betId = randomUUID();
  await sandbox.seedBets([{ betId, userId, bonusFlag: false, reserved: '1.00', confirmed: '1.00', reserveTransactionId: randomUUID(), confirmTransactionId: randomUUID() }]);
  return { betId, userId };
}

/** A credit (adjustreversetransaction) for the bet: the sandbox takes it once the bet is taken (takenBet). */
export const credit = (betId: string = randomUUID(), userId: string = randomUUID(), amount = '1.00') =>
  ({ betId, userId, op: 'credit' as const, amount, bonusFlag: false, transactionType: 'adjustreversetransaction' });

export const reserveMetadata = (userId: string) => ({ userId, brandName: 'Test Brand', brandUserId: 'user-1', data: '{}' });

/** A new bet of $10 for the tenant: its reserve's input, and the confirm that follows it. */
export function reserveAndConfirm(tenantId: string) {
  const betId = randomUUID();
  const userId = randomUUID();
  const input = { tenantId, betId, userId, amount: '10', bonusFlag: false, token: 't', metadata: reserveMetadata(userId) };
  const confirm = { tenantId, betId, userId, op: 'confirm' as const, amount: '10', bonusFlag: false, betMetadata: { id: betId, legs: [] } };
  return { betId, userId, input, confirm };
}

/** How many of the fixture's calls of `op` are delivered. */
export async function deliveredCalls(db: TestDatabase, op: string): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM wallet_calls WHERE op = $1 AND status = 'delivered'", [op]);
  return rows[0]!.n;
}

/** Waits (real time, polling) until `check` holds: for what happens in other connections or processes. */
export async function until(what: string, check: () => Promise<boolean> | boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A wallet fixture with a second sandbox wallet to move its tenant to: the tests of set-wallet's moves. */
export interface MovingFixture {
  f: WalletFixture;
  moved: WalletSandbox;
  /** set-wallet of the fixture's tenant to `url` (as the tests of a move configure it). */
  pointAt(url: string): ReturnType<WalletFixture['wallet']['setWallet']>;
  close(): Promise<void>;
}

export async function movingWalletFixture(): Promise<MovingFixture> {
  const f = await walletFixture();
  const moved = await startWalletSandbox({ auth: { kind: 'client_credentials', ...CLIENT } });
  return {
    f, moved,
    pointAt: (url) => f.wallet.setWallet({ tenantId: f.tenantId, url, auth: 'client_credentials', ...CLIENT, concurrency: 20 }),
    close: async () => {
      await moved.close();
      await f.close();
    },
  };
}
