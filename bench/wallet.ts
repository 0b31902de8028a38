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
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
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

if (process.env.WALLET_BENCH_ROLE === 'sandbox') {
  // The wallet side, in its own process so its CPU is not counted as the service's.
  const { startWalletSandbox } = await import('../src/tools/wallet-sandbox/index.ts');
  const sandbox = await startWalletSandbox({
    auth: { kind: 'client_credentials', ...CLIENT, tokenTtlSeconds: 3600 },
    latencyMs: Number(process.env.WALLET_BENCH_LATENCY ?? 0),
  });
  process.stdout.write(`${JSON.stringify({ url: sandbox.url })}\n`);
  process.on('SIGTERM', () => void sandbox.close().then(() => process.exit(0)));
} else {
  await main();
}

function startSandbox(latencyMs: number): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.resolve(import.meta.dirname, 'wallet.ts')], {
      env: { ...process.env, WALLET_BENCH_ROLE: 'sandbox', WALLET_BENCH_LATENCY: String(latencyMs) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve({ child, url: JSON.parse(out.slice(0, out.indexOf('\n'))).url });
    });
    child.on('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
  });
}

/** Queues n credit calls (each a new bet), perTx calls per transaction on `connections` connections; returns calls/s. */
async function enqueueCalls(pool: Pool, service: Services['wallet'], tenantId: string, n: number, perTx: number, connections: number) {
  const call = () => ({
    tenantId, betId: randomUUID(), userId: randomUUID(), op: 'credit' as const, amount: '2.50', bonusFlag: false, transactionType: 'cashout',
  });
  const t0 = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: connections }, async () => {
    while (next < n) {
      const size = Math.min(perTx, n - next);
      next += size;
      await withTransaction(pool, async (tx) => {
        if (perTx === 1) await service.enqueue(tx, call());
        else await service.enqueueMany(tx, Array.from({ length: size }, call));
      });
    }
  }));
  return n / ((performance.now() - t0) / 1000);
}

async function run(pool: Pool, url: string, latencyMs: number, calls: number, concurrency: number) {
  await pool.query('TRUNCATE wallet_calls, wallet_call_attempts, wallet_bet_sequences, wallet_configs CASCADE');
  const sandbox = await startSandbox(latencyMs);
  const services = benchServices(pool, url, {
    WAGERLINE_WALLET_TIMEOUT_MS: 10_000, WAGERLINE_WALLET_LEASE_MS: 15_000, WAGERLINE_WALLET_POLL_MS: 1000, WAGERLINE_WALLET_RESERVE_RETRIES: 2,
  });
  const tenant = await services.tenants.createTenant({ name: `bench ${latencyMs}` });
  const service = services.wallet;
  await service.setWallet({ tenantId: tenant.tenant_id, url: sandbox.url, auth: 'client_credentials', ...CLIENT, concurrency });
  const single = Math.min(2000, calls);
  const enqueueSingle = await enqueueCalls(pool, service, tenant.tenant_id, single, 1, 4);
  // The rest as race settlement queues them: batches of BATCH, one transaction at a time.
  const batched = calls - single;
  const enqueueBatch = batched ? await enqueueCalls(pool, service, tenant.tenant_id, batched, BATCH, 1) : 0;
  const worker = service.createWorker();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await worker.start();
  for (;;) {
    const { rows } = await pool.query("SELECT count(*)::int AS n FROM wallet_calls WHERE status <> 'delivered'");
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
