// npm run bench:wallet — durable wallet calls delivered per second by ONE service process to the
// reference sandbox (run in a separate process, in memory), at 0 ms and 50 ms wallet latency, and
// the service's own CPU time per delivered call. Before delivery, the calls are queued one per
// transaction (the first 2,000) and in batches (wallet.enqueueMany, WALLET_BENCH_BATCH per
// transaction): both rates are reported. WALLET_BENCH_MODE=statements measures the batch enqueue
// alone at several statement sizes. Uses DATABASE_URL's server (a scratch database
// is created and dropped) or an embedded PostgreSQL in a temporary directory.
// Last line: one JSON object with the figures.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { startEmbedded } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { createPool, withTransaction, type Pool } from '../src/db/pool.ts';
import { enqueueWalletCalls } from '../src/modules/wallet/outbox/enqueue-batch.ts';
import type { Services } from '../src/services.ts';
import { benchServices } from './services.ts';
import { freePort } from '../test/helpers/net.ts';

const CLIENT = { clientId: 'bench', clientSecret: 'bench-secret-123' };
/** Calls per transaction of the batch enqueue (wallet.enqueueMany). */
const BATCH = Number(process.env.WALLET_BENCH_BATCH ?? 5000);

interface Bet { betId: string; userId: string }

if (process.env.WALLET_BENCH_ROLE === 'sandbox') {
  // The wallet side, in its own process so its CPU is not counted as the service's.
  const { startWalletSandbox } = await import('../src/tools/wallet-sandbox/index.ts');
  const sandbox = await startWalletSandbox({
    auth: { kind: 'client_credentials', ...CLIENT, tokenTtlSeconds: 3600 },
    latencyMs: Number(process.env.WALLET_BENCH_LATENCY ?? 0),
  });
  // The bets the credits are for, taken before the run (a wallet credits only a bet it holds).
  const bets = JSON.parse(readFileSync(process.env.WALLET_BENCH_BETS!, 'utf8')) as Bet[];
  await sandbox.seedBets(bets.map((b) => ({
    ...b, bonusFlag: false, reserved: '1.00', confirmed: '1.00', reserveTransactionId: randomUUID(), confirmTransactionId: randomUUID() })));
  process.stdout.write(`${JSON.stringify({ url: sandbox.url })}\n`);
  process.on('SIGTERM', () => void sandbox.close().then(() => process.exit(0)));
} else {
  await main();
}

/** Starts the sandbox process holding `bets` as taken (reserved and confirmed); resolves with its URL. */
function startSandbox(latencyMs: number, bets: Bet[]): Promise<{ child: ChildProcess; url: string }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wagerline-bench-bets-'));
  const file = path.join(dir, 'bets.json');
  writeFileSync(file, JSON.stringify(bets));
  return new Promise<{ child: ChildProcess; url: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.resolve(import.meta.dirname, 'wallet.ts')], {
      env: { ...process.env, WALLET_BENCH_ROLE: 'sandbox', WALLET_BENCH_LATENCY: String(latencyMs), WALLET_BENCH_BETS: file },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve({ child, url: JSON.parse(out.slice(0, out.indexOf('\n'))).url });
    });
    child.on('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
  }).finally(() => rmSync(dir, { recursive: true, force: true }));
}

/** Queues a cash-out credit for each bet, perTx calls per transaction on `connections` connections; returns calls/s. */
async function enqueueCalls(pool: Pool, service: Services['wallet'], tenantId: string, bets: Bet[], perTx: number, connections: number) {
  const call = (bet: Bet) => ({ tenantId, ...bet, op: 'credit' as const, amount: '2.50', bonusFlag: false, transactionType: 'cashout' });
  const t0 = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: connections }, async () => {
    while (next < bets.length) {
      const size = Math.min(perTx, bets.length - next);
      const slice = bets.slice(next, next + size);
      next += size;
      await withTransaction(pool, async (tx) => {
        if (perTx === 1) await service.enqueue(tx, call(slice[0]!));
        else await service.enqueueMany(tx, slice.map(call));
      });
    }
  }));
  return bets.length / ((performance.now() - t0) / 1000);
}

async function run(pool: Pool, url: string, latencyMs: number, calls: number, concurrency: number) {
  await pool.query('TRUNCATE wallet_calls, wallet_call_attempts, wallet_bet_sequences, wallet_configs CASCADE');
  const bets: Bet[] = Array.from({ length: calls }, () => ({ betId: randomUUID(), userId: randomUUID() }));
  const sandbox = await startSandbox(latencyMs, bets);
  const services = benchServices(pool, url, {
    WAGERLINE_WALLET_TIMEOUT_MS: 10_000, WAGERLINE_WALLET_LEASE_MS: 15_000, WAGERLINE_WALLET_POLL_MS: 1000, WAGERLINE_WALLET_RESERVE_RETRIES: 2,
  });
  const tenant = await services.tenants.createTenant({ name: `bench ${latencyMs}` });
  const service = services.wallet;
  await service.setWallet({ tenantId: tenant.tenant_id, url: sandbox.url, auth: 'client_credentials', ...CLIENT, concurrency });
  const single = Math.min(2000, calls);
  const enqueueSingle = await enqueueCalls(pool, service, tenant.tenant_id, bets.slice(0, single), 1, 4);
  // The rest as race settlement queues them: batches of BATCH, one transaction at a time.
  const batched = calls - single;
  const enqueueBatch = batched ? await enqueueCalls(pool, service, tenant.tenant_id, bets.slice(single), BATCH, 1) : 0;
  const worker = service.createWorker();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await worker.start();
  for (;;) {
    const { rows } = await pool.query(
      "SELECT count(*) FILTER (WHERE status <> 'delivered')::int AS n, count(*) FILTER (WHERE status = 'failed')::int AS failed FROM wallet_calls");
    // A call the sandbox refused is parked, never delivered: waiting on would never end.
    if (rows[0].failed > 0) throw new Error(`${rows[0].failed} calls were refused by the sandbox (wagerline wallet failed says why)`);
    if (rows[0].n === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  await worker.stop();
  await services.close();
  sandbox.child.kill('SIGTERM');
  const result = {
    latency_ms: latencyMs,
    concurrency,
    calls,
    seconds: Number(seconds.toFixed(2)),
    calls_per_s: Math.round(calls / seconds),
    cpu_us_per_call: Math.round((cpu.user + cpu.system) / calls),
    enqueue_per_s_one_call_per_tx: Math.round(enqueueSingle),
    enqueue_batch: Math.min(BATCH, batched),
    enqueue_per_s_batch: Math.round(enqueueBatch),
  };
  console.log(`latency ${latencyMs} ms, concurrency ${concurrency}: ${calls} calls in ${result.seconds} s = ${result.calls_per_s} calls/s; service CPU ${result.cpu_us_per_call} µs/call; enqueue (1 call per transaction, 4 connections) ${result.enqueue_per_s_one_call_per_tx}/s, (batches of ${result.enqueue_batch} per transaction, 1 connection) ${result.enqueue_per_s_batch}/s`);
  return result;
}

/**
 * WALLET_BENCH_MODE=statements: the batch enqueue alone, one transaction of WALLET_BENCH_CALLS
 * (20,000) calls at several statement sizes, sizes interleaved over three rounds; median calls/s.
 */
async function statementSizes(pool: Pool, url: string) {
  const services = benchServices(pool, url);
  const tenantId = (await services.tenants.createTenant({ name: 'bench statements' })).tenant_id;
  await services.wallet.setWallet({ tenantId, url: 'http://127.0.0.1:9/wallet', auth: 'client_credentials', ...CLIENT });
  const calls = Number(process.env.WALLET_BENCH_CALLS ?? 20_000);
  const sizes = [500, 1000, 2000, 5000, 10_000, 20_000];
  const rates = new Map<number, number[]>(sizes.map((size) => [size, []]));
  for (let round = 0; round < 3; round++) {
    for (const size of [...sizes].sort(() => Math.random() - 0.5)) {
      const inputs = Array.from({ length: calls }, () => ({
        tenantId, betId: randomUUID(), userId: randomUUID(), op: 'credit' as const, amount: '2.50', bonusFlag: false, transactionType: 'cashout',
      }));
      const t0 = performance.now();
      await withTransaction(pool, (tx) => enqueueWalletCalls(tx, inputs, { statementCalls: size }));
      rates.get(size)!.push(Math.round(calls / ((performance.now() - t0) / 1000)));
    }
  }
  await services.close();
  const median = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1]!;
  for (const [size, v] of rates) console.log(`${calls} calls in one transaction, ${size} per statement: ${median(v)} calls/s (runs ${v.join(', ')})`);
  return { calls, calls_per_s_by_statement_size: Object.fromEntries([...rates].map(([size, v]) => [size, median(v)])) };
}

async function main() {
  let adminUrl = process.env.DATABASE_URL;
  let tmp: string | undefined;
  let embedded: Awaited<ReturnType<typeof startEmbedded>> | undefined;
  if (!adminUrl) {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'wagerline-bench-'));
    chmodSync(tmp, 0o755);
    embedded = await startEmbedded(tmp, await freePort());
    adminUrl = embedded.url;
  }
  const name = `wl_bench_wallet_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  await migrate(url.toString());
  const pool = createPool(url.toString(), 10);
  try {
    const machine = `${os.cpus().length} cores, Node ${process.versions.node}`;
    if (process.env.WALLET_BENCH_MODE === 'statements') {
      console.log(JSON.stringify({ bench: 'wallet-statements', machine, ...await statementSizes(pool, url.toString()) }));
      return;
    }
    const fast = await run(pool, url.toString(), 0, Number(process.env.WALLET_BENCH_CALLS ?? 20_000), 50);
    const slow = await run(pool, url.toString(), 50, Number(process.env.WALLET_BENCH_SLOW_CALLS ?? 5_000), 50);
    console.log(JSON.stringify({ bench: 'wallet', machine, fast, slow }));
  } finally {
    await pool.end();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
    await embedded?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }
}
