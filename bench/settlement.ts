// npm run bench:settlement — from a race's final result to the last settleBet delivered, for a race
// with BENCH_BETS (default 100,000) taken bets, split into settling (resultRace: every bet's new
// state written and its wallet calls queued, in batches) and delivery (the real wallet worker,
// `bin/wagerline wallet worker` in a process of its own, sending the calls to the reference sandbox
// in another process, bench/settlement-sandbox.ts, in memory, at BENCH_WALLET_LATENCY ms, default 0).
//
// Setup (not timed): a scratch database (DATABASE_URL's server, else an embedded PostgreSQL), a
// tenant with the sandbox as its wallet, a meeting of two 14-runner races, and the bets written in
// bulk by test/factories/placed-bets.ts (a realistic mix: WIN, PLACE, exotics, 2-leg multis whose
// other race is resulted first), the sandbox told of every reserve and confirm (seedBets), the
// races closed and the other race resulted, then VACUUM ANALYZE (as autovacuum would have).
// BENCH_DELIVERY=after (default): the worker starts once settling has returned, so the two phases
// are measured apart (the worker's own start-up is reported, not counted). BENCH_DELIVERY=during:
// the worker runs from the start and delivers while batches commit, as in production.
// BENCH_ANALYZE=1 (after only): ANALYZE wallet_calls between the two phases (see
// docs/performance-settlement.md).
// Then where settling's time went per batch and every statement kind (bench/settlement-report.ts),
// and planning measured alone (BENCH_PROFILE=0 skips it). Last, every bet is checked settled
// exactly once (test/helpers/settlement-check.ts); a failure is printed loudly and the exit code
// is 1. Last line: one JSON object with the figures.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config.ts';
import { createSecretBox } from '../src/crypto/secret-box.ts';
import { createPool, type Pool } from '../src/db/pool.ts';
import type { SettlementSummary } from '../src/modules/betting/settlement.service.ts';
import { createServices, type Services } from '../src/services.ts';
import { betMix, insertPlacedBets, sandboxSeeds } from '../test/factories/placed-bets.ts';
import { startCli } from '../test/helpers/cli.ts';
import { checkSettledOnce, type SettledOnce } from '../test/helpers/settlement-check.ts';
import { cpuMeter, fmt, round, timeStatements, type CpuMeter, type StatementTimer } from './measure.ts';
import { scratchDatabase } from './scratch.ts';
import { log, planAlone, reportBreakdown, statementKind, type Breakdown } from './settlement-report.ts';
import { CLIENT, OPENING, startSandbox, type Sandbox } from './settlement-sandbox.ts';

const MEETING = 990301;
const RACE = 2;
const RUNNERS = 14;

/** The wallet worker's process, started when delivery is to begin. */
function walletWorker(env: Record<string, string>) {
  let cli: Awaited<ReturnType<typeof startCli>> | undefined;
  return {
    /** Starts it: when (epoch ms), and how long its start-up took (s). */
    async start() {
      const w0 = performance.now();
      cli = await startCli(['wallet', 'worker'], env);
      return { started: Date.now(), startup: (performance.now() - w0) / 1000 };
    },
    pids: () => (cli ? [cli.child.pid!] : []),
    async stop() {
      if (!cli || cli.child.exitCode !== null) return;
      const exited = new Promise((resolve) => cli!.child.once('exit', resolve));
      cli.child.kill('SIGTERM');
      await exited;
    },
  };
}
type WalletWorker = ReturnType<typeof walletWorker>;
type WorkerStart = Awaited<ReturnType<WalletWorker['start']>>;

/** What every phase works with. */
interface Bench {
  bets: number;
  during: boolean;
  analyze: boolean;
  pool: Pool;
  services: Services;
  timing: StatementTimer;
  sandbox: Sandbox;
  worker: WalletWorker;
  tenantId: string;
}

interface Settling {
  loadBefore: number;
  meters: { postgres: CpuMeter; sandbox: CpuMeter; worker: CpuMeter };
  /** When the result was given (epoch ms). */
  t0: number;
  seconds: number;
  cpu: { bench: number; postgres: number; worker: number };
  summary: SettlementSummary;
  batches: number;
}

interface Delivery {
  analyzeS: number | null;
  started: WorkerStart;
  cpu: { postgres: number; sandbox: number; worker: number };
  calls: number;
  /** From settling's end (during) or the worker's start (after) to the last call delivered. */
  seconds: number;
  /** From the first call delivered to the last (during), else `seconds`: the rate's divisor. */
  spanS: number;
  totalS: number;
}

async function main(): Promise<number> {
  const bets = Number(process.env.BENCH_BETS ?? 100_000);
  const scratch = await scratchDatabase('settlement');
  const pool = createPool(scratch.url, 10);
  const timing = timeStatements(pool, statementKind);
  const key = randomBytes(32);
  const services = createServices({ config: loadConfig({ DATABASE_URL: scratch.url, LOG_LEVEL: 'silent' }), db: pool, box: createSecretBox(key) });
  // Settlement looks these up at each call: timing them splits a batch into its phases.
  timing.method(services.wallet, 'enqueueMany', 'call: wallet.enqueueMany');
  timing.method(services.catalogue, 'raceFacts', 'call: catalogue.raceFacts');
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'wagerline-bench-settlement-'));
  const sandbox = await startSandbox();
  const worker = walletWorker({ DATABASE_URL: scratch.url, WAGERLINE_SECRET_KEY: key.toString('base64'), WAGERLINE_DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
  try {
    const tenantId = await setUp(pool, services, sandbox, bets);
    const during = process.env.BENCH_DELIVERY === 'during';
    const bench: Bench = { bets, during, analyze: process.env.BENCH_ANALYZE === '1', pool, services, timing, sandbox, worker, tenantId };
    const startedEarly = during ? await worker.start() : undefined;
    const settling = await settle(bench);
    const delivery = await deliver(bench, settling, startedEarly);
    const breakdown = reportBreakdown(timing.stats, settling.seconds, bets, settling.batches);
    const profile = process.env.BENCH_PROFILE === '0' ? undefined : await planAlone(pool, services, { meetingId: MEETING, raceNumber: RACE, otherRaceNumber: 1 });
    if (profile) log(`planning alone (every bet planned again in memory, best of 3): ${round(profile.us, 1)} µs of CPU per bet = ${round(profile.us, 1)} ms per 1,000 bets`);
    const check = await verify(bench, settling.summary);
    process.stdout.write(`${JSON.stringify(await figures(bench, { settling, delivery, breakdown, profile, check }))}\n`);
    return check.ok ? 0 : 1;
  } finally {
    await worker.stop();
    sandbox.child.kill('SIGTERM');
    await services.close();
    await pool.end();
    await scratch.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Setup, not timed: the tenant, the meeting, the bets (the sandbox told of them), race 1 resulted, fresh statistics. */
async function setUp(pool: Pool, services: Services, sandbox: Sandbox, bets: number): Promise<string> {
  const s0 = performance.now();
  const tenantId = (await services.tenants.createTenant({ name: 'Bench Settlement' })).tenant_id;
  await services.wallet.setWallet({ tenantId, url: sandbox.url, auth: 'client_credentials', ...CLIENT });
  await importMeeting(services);
  const planned = betMix({ count: bets, meetingId: MEETING, raceNumber: RACE, runners: RUNNERS, multiRace: 1, users: Math.ceil(bets / 5), seed: 11 });
  const placed = await insertPlacedBets(pool, services.catalogue, tenantId, planned);
  const written = performance.now();
  const seeds = sandboxSeeds(placed);
  for (let i = 0; i < seeds.length; i += 10_000) await sandbox.ask({ seed: seeds.slice(i, i + 10_000) });
  const seeded = performance.now();
  for (const race of [1, RACE]) await services.catalogue.setStatus(MEETING, race, 'closed');
  await services.catalogue.recordResult(MEETING, 1, { placings: [[4], [1], [9], [2]] });
  await services.settlement.runPending(); // race 1: its multis wait for race 2
  for (const table of ['bets', 'bet_legs', 'bet_history', 'wallet_calls', 'wallet_bet_sequences']) await pool.query(`VACUUM ANALYZE ${table}`);
  const kinds = new Map<string, number>();
  for (const p of placed) kinds.set(p.kind, (kinds.get(p.kind) ?? 0) + 1);
  log(`setup: ${fmt(bets)} bets (${[...kinds].map(([k, n]) => `${k} ${fmt(n)}`).join(', ')}) written in ${round((written - s0) / 1000, 1)} s ` +
    `(${fmt(Math.round(bets / ((written - s0) / 1000)))}/s), the sandbox seeded in ${round((seeded - written) / 1000, 1)} s, ready after ${round((performance.now() - s0) / 1000, 1)} s`);
  return tenantId;
}

/** The meeting: race 1 (the other leg of the multis) and race RACE, RUNNERS runners each, every product. */
async function importMeeting(services: Services): Promise<void> {
  const runners = Array.from({ length: RUNNERS }, (_, i) => ({ number: i + 1, name: `Runner ${i + 1}`, win: round(1.8 + i * 1.7), place: round(1.1 + i * 0.35) }));
  await services.catalogue.importCatalog({
    meeting_id: MEETING, date: new Date().toISOString().slice(0, 10), venue: 'Bench Park', jurisdiction: 'VIC', code: 'T',
    races: [1, 2].map((n) => ({ race_number: n, start_time: new Date(Date.now() + n * 1800_000).toISOString(),
      products: ['win', 'place', 'exacta', 'quinella', 'trifecta', 'firstfour'], runners })),
  });
}

/** Timed: the final result → every bet's new state and wallet calls committed. */
async function settle({ pool, services, sandbox, worker, timing }: Bench): Promise<Settling> {
  const loadBefore = round(os.loadavg()[0]!);
  // CPU of each process. PostgreSQL: the backends of this benchmark's database (the server is on
  // this machine; its shared processes, such as the WAL writer, and other databases' backends are
  // not counted).
  const backends = async () => (await pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database()')).rows.map((r) => r.pid);
  const meters = { postgres: await cpuMeter(backends), sandbox: await cpuMeter(() => [sandbox.child.pid!]), worker: await cpuMeter(worker.pids) };
  const bench0 = process.cpuUsage();
  timing.state.on = true;
  const t0 = Date.now();
  const p0 = performance.now();
  const result = await services.settlement.resultRace(MEETING, RACE, {
    placings: [[3], [8], [1], [12]], dividends: { exacta: 48.2, quinella: 21.6, trifecta: 412.9, firstfour: 3650.4 },
  });
  const seconds = (performance.now() - p0) / 1000;
  timing.state.on = false;
  const benchCpu = process.cpuUsage(bench0);
  const cpu = { bench: (benchCpu.user + benchCpu.system) / 1e6, postgres: await meters.postgres.used(), worker: await meters.worker.used() };
  const summary = result.settlement!;
  // A job's last batch is the one that finds fewer bets than a batch holds (none, for a round number).
  const batches = Math.ceil(summary.bets_seen / 1000) + (summary.bets_seen % 1000 === 0 ? 1 : 0);
  log(`settling: ${fmt(summary.bets_changed)} of ${fmt(summary.bets_seen)} bets changed, ${fmt(summary.calls_queued)} calls queued, ` +
    `${batches} batches, ${round(seconds)} s = ${fmt(Math.round(summary.bets_seen / seconds))} bets/s` +
    `${summary.problems.length ? `; PROBLEMS: ${summary.problems.join('; ')}` : ''}`);
  return { loadBefore, meters, t0, seconds, cpu, summary, batches };
}

/**
 * Delivery: until the last call settlement queued is delivered. The outbox's statistics still say
 * what autovacuum last saw (no call pending); BENCH_ANALYZE=1 refreshes them first, as its next
 * analyze would, to show delivery without that effect.
 */
async function deliver(bench: Bench, settling: Settling, startedEarly: WorkerStart | undefined): Promise<Delivery> {
  const { pool, during, tenantId } = bench;
  const { meters } = settling;
  let analyzeS: number | null = null;
  if (bench.analyze && !during) {
    const a0 = performance.now();
    await pool.query('ANALYZE wallet_calls');
    analyzeS = (performance.now() - a0) / 1000;
    log(`ANALYZE wallet_calls (BENCH_ANALYZE=1): ${round(analyzeS)} s, not counted`);
  }
  const started = startedEarly ?? await bench.worker.start();
  if (!during) for (const meter of Object.values(meters)) await meter.since();
  await waitDelivered(pool, tenantId, 60_000);
  const cpu = { postgres: await meters.postgres.used(), sandbox: await meters.sandbox.used(), worker: await meters.worker.used() };
  const { rows: [span] } = await pool.query<{ calls: number; first: Date; last: Date }>(
    'SELECT count(*)::int AS calls, min(created_at) AS first, max(finished_at) AS last FROM wallet_calls WHERE tenant_id = $1 AND seq > 3', [tenantId]);
  const last = span!.last.getTime();
  const seconds = during ? (last - settling.t0) / 1000 - settling.seconds : (last - started.started) / 1000;
  const spanS = during ? (last - span!.first.getTime()) / 1000 : seconds;
  const totalS = during ? (last - settling.t0) / 1000 : settling.seconds + seconds;
  const delivery = { analyzeS, started, cpu, calls: span!.calls, seconds, spanS, totalS };
  logDelivery(during, settling, delivery);
  return delivery;
}

async function waitDelivered(pool: Pool, tenantId: string, timeoutMs: number): Promise<void> {
  let last = -1;
  let since = performance.now();
  for (;;) {
    const { rows: [r] } = await pool.query<{ open: number; failed: number }>(
      `SELECT count(*) FILTER (WHERE status IN ('pending', 'sending'))::int AS open, count(*) FILTER (WHERE status = 'failed')::int AS failed
         FROM wallet_calls WHERE tenant_id = $1 AND status IN ('pending', 'sending', 'failed')`, [tenantId]);
    if (r!.failed) throw new Error(`${r!.failed} wallet call(s) failed (parked): delivery cannot finish`);
    if (r!.open === 0) return;
    if (r!.open !== last) [last, since] = [r!.open, performance.now()];
    if (performance.now() - since > timeoutMs) throw new Error(`delivery stalled: ${r!.open} calls open for ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function logDelivery(during: boolean, settling: Settling, delivery: Delivery): void {
  const { started, calls, seconds, spanS, totalS, cpu } = delivery;
  log(`delivery (${during ? 'worker running throughout' : `worker started after settling, start-up ${round(started.startup)} s not counted`}): ` +
    `${fmt(calls)} calls, ${during ? `last delivered ${round(seconds)} s after settling ended; ` : ''}${round(spanS)} s = ${fmt(Math.round(calls / spanS))} calls/s`);
  log(`total: ${round(totalS)} s from the final result to the last settleBet delivered (load average ${settling.loadBefore} before, ${round(os.loadavg()[0]!)} after)`);
  log(`CPU while settling: bench ${round(settling.cpu.bench, 1)} s, PostgreSQL ${round(settling.cpu.postgres, 1)} s${during ? `, worker ${round(settling.cpu.worker, 1)} s` : ''}; ` +
    `${during ? 'from the result to the end' : 'while delivering'}: worker ${round(cpu.worker, 1)} s, sandbox ${round(cpu.sandbox, 1)} s, PostgreSQL ${round(cpu.postgres, 1)} s`);
}

/** Every bet settled exactly once, at the wallet too. */
async function verify({ pool, sandbox, tenantId, bets }: Bench, summary: SettlementSummary): Promise<SettledOnce & { ok: boolean }> {
  const check = await checkSettledOnce(pool, tenantId, { meetingId: MEETING, raceNumber: RACE }, {
    effects: async () => new Map((await sandbox.ask<{ effects: Array<[string, number]> }>({ effects: true })).effects),
    balances: async (ids) => new Map((await sandbox.ask<{ balances: Array<[string, { cash: string; bonus: string; reserved: string }]> }>({ balances: ids })).balances),
  }, OPENING, { walletExclusive: true });
  const ok = check.problems.length === 0 && summary.problems.length === 0 && check.bets === bets;
  if (ok) log(`verified: ${fmt(check.bets)} bets settled exactly once; ${fmt(check.users)} users' wallet balances match the calls delivered; every transaction took effect once`);
  else log(`\n*** SETTLEMENT CHECK FAILED ***\n${[...summary.problems, ...check.problems].join('\n')}\n`);
  return { ...check, ok };
}

interface Measured {
  settling: Settling;
  delivery: Delivery;
  breakdown: Breakdown;
  profile: { us: number } | undefined;
  check: SettledOnce & { ok: boolean };
}

/** The last line's figures (docs/performance-settlement.md quotes them by these keys). */
async function figures({ bets, during, pool }: Bench, { settling, delivery, breakdown, profile, check }: Measured) {
  const thousands = bets / 1000;
  return {
    bench: 'settlement', date: new Date().toISOString().slice(0, 10), ok: check.ok, delivery: during ? 'during' : 'after',
    analyze_before_delivery_s: delivery.analyzeS === null ? null : round(delivery.analyzeS), bets, batches: settling.batches,
    bets_changed: settling.summary.bets_changed, calls: delivery.calls, calls_by_op: check.calls,
    settle_s: round(settling.seconds), settle_bets_per_s: Math.round(bets / settling.seconds),
    deliver_s: round(delivery.seconds), deliver_calls_per_s: Math.round(delivery.calls / delivery.spanS), total_s: round(delivery.totalS),
    worker_startup_s: round(delivery.started.startup), statements_per_batch: Math.round(breakdown.perBatch), settle_sql_s: round(breakdown.inSql / 1000),
    settle_ms_per_1000_bets: Object.fromEntries(breakdown.phases.map(([phase, ms]) => [phase.split(' (')[0], round(ms / thousands, 1)])),
    plan_us_per_bet: profile ? round(profile.us, 1) : null,
    cpu_s: {
      settling: { bench: round(settling.cpu.bench, 1), postgres: round(settling.cpu.postgres, 1), ...(during && { worker: round(settling.cpu.worker, 1) }) },
      [during ? 'result_to_end' : 'delivering']: { worker: round(delivery.cpu.worker, 1), sandbox: round(delivery.cpu.sandbox, 1), postgres: round(delivery.cpu.postgres, 1) },
    },
    wallet_latency_ms: Number(process.env.BENCH_WALLET_LATENCY ?? 0),
    node: process.versions.node, cores: os.cpus().length, load_avg_1m: { before: settling.loadBefore, after: round(os.loadavg()[0]!) },
    postgres: (await pool.query<{ v: string }>("SELECT split_part(version(), ' on ', 1) AS v")).rows[0]!.v,
  };
}

process.exitCode = await main();
