// A wallet test bench: a fresh database with one tenant, the reference wallet sandbox on
// 127.0.0.1, a wallet service with a test clock, and a worker driven by drain().
import { randomBytes, randomUUID } from 'node:crypto';
import { Registry } from 'prom-client';
import { createSecretBox } from '../src/crypto/secret-box.ts';
import { withTransaction } from '../src/db/pool.ts';
import { createTenantService } from '../src/modules/tenants/tenants.service.ts';
import type { WalletCallInput } from '../src/modules/wallet/outbox/enqueue.ts';
import { createWalletService, type WalletSettings } from '../src/modules/wallet/wallet.service.ts';
import { startWalletSandbox } from '../src/tools/wallet-sandbox/index.ts';
import type { SandboxOptions } from '../src/tools/wallet-sandbox/types.ts';
import { testClock } from './helpers/app.ts';
import { freshDatabase } from './helpers/db.ts';

export const CLIENT = { clientId: 'wagerline-test', clientSecret: 'sandbox-secret-123' };

export interface FixtureOptions {
  sandbox?: Partial<SandboxOptions>;
  settings?: Partial<WalletSettings>;
  concurrency?: number;
  amountUnit?: 'dollars' | 'cents';
  signingSecret?: string;
}

export async function walletFixture(options: FixtureOptions = {}) {
  const db = await freshDatabase();
  const key = randomBytes(32);
  const box = createSecretBox(key);
  const clock = testClock();
  const tenant = await createTenantService({ db: db.pool }).createTenant({ name: 'Wallet Test' });
  const sandbox = await startWalletSandbox({
    auth: { kind: 'client_credentials', ...CLIENT },
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
  const wallet = createWalletService({ db: db.pool, box, config: settings, clock, registry });
  await wallet.setWallet({
    tenantId: tenant.tenant_id, url: sandbox.url, auth: 'client_credentials', ...CLIENT,
    concurrency: options.concurrency ?? 20, amountUnit: options.amountUnit ?? 'dollars',
    ...(options.signingSecret && { signingSecret: options.signingSecret }),
  });
  const worker = wallet.createWorker({ listen: false });
  const tenantId = tenant.tenant_id;

  return {
    db, key, box, clock, tenantId, sandbox, wallet, worker, registry, settings,
    /** Enqueues calls, each in its own transaction (as separate state changes would). */
    async enqueue(...inputs: Omit<WalletCallInput, 'tenantId'>[]) {
      const out = [];
      for (const input of inputs) out.push(await withTransaction(db.pool, (tx) => wallet.enqueue(tx, { tenantId, ...input })));
      return out;
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
      const service = createWalletService({
        db: db.pool, box, config: settings, clock, registry,
        log: (message, fields) => logs.push({ message, ...(fields && { fields }) }),
      });
      return { logs, service, worker: service.createWorker({ listen: false }) };
    },
    async close() {
      await worker.stop();
      await wallet.close();
      await sandbox.close();
      await db.drop();
    },
  };
}

export type WalletFixture = Awaited<ReturnType<typeof walletFixture>>;

export const credit = (betId = randomUUID(), userId = randomUUID(), amount = '1.00') =>
  ({ betId, userId, op: 'credit' as const, amount, bonusFlag: false, transactionType: 'adjustreversetransaction' });

export const reserveMetadata = (userId: string) => ({ userId, brandName: 'Test Brand', brandUserId: 'user-1', data: '{}' });

/** Waits (real time, polling) until `check` holds: for what happens in other connections or processes. */
export async function until(what: string, check: () => Promise<boolean> | boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
