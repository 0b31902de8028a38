// npm run bench:settlement — from a race's final result to the last settleBet delivered, for a race
// with BENCH_BETS (default 100,000) taken bets, split into settling (resultRace: every bet's new
// state written and its wallet calls queued, in batches) and delivery (the real wallet worker,
// `bin/wagerline wallet worker` in a process of its own, sending the calls to the reference sandbox
// in another process, bench/settlement-sandbox.ts, in memory, at BENCH_WALLET_LATENCY ms, default 0).
//
// Setup (not timed): a scratch database (DATABASE_URL's server, else an embedded PostgreSQL), a
// tenant with the sandbox as its wallet, a meeting of two 14-runner races, and the bets written in
// bulk by test/factories/placed-bets.ts (a realistic mix: WIN, PLACE, exotics, 2-leg multis whose
// other race is resulted first), the sandbox told of every reserve and confirm (seedBets), then
// VACUUM ANALYZE (as autovacuum would have), and the race closed.
// BENCH_DELIVERY=after (default): the worker starts once settling has returned, so the two phases
// are measured apart (the worker's own start-up is reported, not counted). BENCH_DELIVERY=during:
// the worker runs from the start and delivers while batches commit, as in production.
// BENCH_ANALYZE=1 (after only): ANALYZE wallet_calls between the two phases (see docs/performance.md).
// Then every bet is checked settled exactly once (test/helpers/settlement-check.ts); a failure is
// printed loudly and the exit code is 1. BENCH_PROFILE=0 skips the per-statement profile.
// Last line: one JSON object with the figures.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config.ts';
import { createSecretBox } from '../src/crypto/secret-box.ts';
import { createPool, type Pool } from '../src/db/pool.ts';
import { planSettlement } from '../src/modules/betting/settle-plan.ts';
import * as sq from '../src/modules/betting/settlement.queries.ts';
import { callOf } from '../src/modules/betting/settlement.service.ts';
import { createServices } from '../src/services.ts';
import { betMix, insertPlacedBets, sandboxSeeds } from '../test/factories/placed-bets.ts';
import { startCli } from '../test/helpers/cli.ts';
import { checkSettledOnce } from '../test/helpers/settlement-check.ts';
import { cpuMeter, fmt, round, timeStatements } from './measure.ts';
import { scratchDatabase } from './scratch.ts';
import { CLIENT, OPENING, startSandbox } from './settlement-sandbox.ts';

const MEETING = 990301;
const RACE = 2;
const RUNNERS = 14;

/** The kind of an unnamed statement of settlement's (statements are named by their own name). */
function statementKind(text: string): string | undefined {
  if (/^(BEGIN|COMMIT|ROLLBACK)/.test(text)) return 'begin/commit';
  if (text.includes('FROM settlement_jobs WHERE job_id = $1 FOR UPDATE')) return 'job lock';
  if (text.startsWith('UPDATE settlement_jobs')) return 'job advance';
  if (text.includes("FROM settlement_jobs WHERE status = 'pending'")) return 'pending jobs';
  if (text.includes('AND placement_guard FOR UPDATE')) return 'enqueue: placement guard';
  if (text.includes('INSERT INTO wallet_bet_sequences')) return 'enqueue: call row';
  return undefined;
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

async function main(): Promise<number> {
  const bets = Number(process.env.BENCH_BETS ?? 100_000);
  const during = process.env.BENCH_DELIVERY === 'during';
  const analyze = process.env.BENCH_ANALYZE === '1';
  const scratch = await scratchDatabase('settlement');
  const pool = createPool(scratch.url, 10);
  const timing = timeStatements(pool, statementKind);
  const key = randomBytes(32);
  const services = createServices({ config: loadConfig({ DATABASE_URL: scratch.url, LOG_LEVEL: 'silent' }), db: pool, box: createSecretBox(key) });
  // Settlement looks these up at each call: timing them splits a batch into its phases.
  timing.method(services.wallet, 'enqueue', 'call: wallet.enqueue');
  timing.method(services.catalogue, 'raceFacts', 'call: catalogue.raceFacts');
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'wagerline-bench-settlement-'));
  const sandbox = await startSandbox();
  let worker: Awaited<ReturnType<typeof startCli>> | undefined;
  const log = (line: string) => process.stderr.write(`${line}\n`);
  try {
    // Setup, not timed.
    const s0 = performance.now();
    const tenantId = (await services.tenants.createTenant({ name: 'Bench Settlement' })).tenant_id;
    await services.wallet.setWallet({ tenantId, url: sandbox.url, auth: 'client_credentials', ...CLIENT });
    const runners = Array.from({ length: RUNNERS }, (_, i) => ({ number: i + 1, name: `Runner ${i + 1}`, win: round(1.8 + i * 1.7), place: round(1.1 + i * 0.35) }));
    await services.catalogue.importCatalog({
      meeting_id: MEETING, date: new Date().toISOString().slice(0, 10), venue: 'Bench Park', jurisdiction: 'VIC', code: 'T',
      races: [1, 2].map((n) => ({ race_number: n, start_time: new Date(Date.now() + n * 1800_000).toISOString(),
        products: ['win', 'place', 'exacta', 'quinella', 'trifecta', 'firstfour'], runners })),
    });
    const planned = betMix({ count: bets, meetingId: MEETING, raceNumber: RACE, runners: RUNNERS, multiRace: 1, users: Math.ceil(bets / 5), seed: 11 });
    const placed = await insertPlacedBets(pool, services.catalogue, tenantId, planned);
    const written = performance.now();
    const seeds = sandboxSeeds(placed);
    for (let i = 0; i < seeds.length; i += 10_000) await sandbox.ask({ seed: seeds.slice(i, i + 10_000) });
    const seeded = performance.now();
    for (const race of [1, RACE]) await services.catalogue.setStatus(MEETING, race, 'closed');
    await services.catalogue.recordResult(MEETING, 1, { placings: [[4], [1], [9]] });
    await services.settlement.runPending(); // race 1: its multis wait for race 2
    for (const table of ['bets', 'bet_legs', 'bet_history', 'wallet_calls', 'wallet_bet_sequences']) await pool.query(`VACUUM ANALYZE ${table}`);
    const kinds = new Map<string, number>();
    for (const p of placed) kinds.set(p.kind, (kinds.get(p.kind) ?? 0) + 1);
    log(`setup: ${fmt(bets)} bets (${[...kinds].map(([k, n]) => `${k} ${fmt(n)}`).join(', ')}) written in ${round((written - s0) / 1000, 1)} s ` +
      `(${fmt(Math.round(bets / ((written - s0) / 1000)))}/s), the sandbox seeded in ${round((seeded - written) / 1000, 1)} s, ready after ${round((performance.now() - s0) / 1000, 1)} s`);

    const workerEnv = { DATABASE_URL: scratch.url, WAGERLINE_SECRET_KEY: key.toString('base64'), WAGERLINE_DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
    const startWorker = async () => {
      const w0 = performance.now();
      worker = await startCli(['wallet', 'worker'], workerEnv);
      return { started: Date.now(), startup: (performance.now() - w0) / 1000 };
    };
    let started = during ? await startWorker() : undefined;

    const loadBefore = round(os.loadavg()[0]!);
    // CPU of each process. PostgreSQL: the backends of this benchmark's database (the server is on
    // this machine; its shared processes, such as the WAL writer, and other databases' backends are
    // not counted).
    const backends = async () => (await pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database()')).rows.map((r) => r.pid);
    const meters = { postgres: await cpuMeter(backends), sandbox: await cpuMeter(() => [sandbox.child.pid!]), worker: await cpuMeter(() => (worker ? [worker.child.pid!] : [])) };
    // Timed: the final result → every bet's new state and wallet calls committed.
    const bench0 = process.cpuUsage();
    timing.state.on = true;
    const t0 = Date.now();
    const p0 = performance.now();
    const result = await services.settlement.resultRace(MEETING, RACE, {
      placings: [[3], [8], [1], [12]], dividends: { exacta: 48.2, quinella: 21.6, trifecta: 412.9, firstfour: 3650.4 },
    });
    const settleS = (performance.now() - p0) / 1000;
    timing.state.on = false;
    const benchCpu = process.cpuUsage(bench0);
    const settleCpu = { bench: (benchCpu.user + benchCpu.system) / 1e6, postgres: await meters.postgres.used(), worker: await meters.worker.used() };
    const summary = result.settlement!;
    // A job's last batch is the one that finds fewer bets than a batch holds (none, for a round number).
    const batches = Math.ceil(summary.bets_seen / 1000) + (summary.bets_seen % 1000 === 0 ? 1 : 0);
    log(`settling: ${fmt(summary.bets_changed)} of ${fmt(summary.bets_seen)} bets changed, ${fmt(summary.calls_queued)} calls queued, ` +
      `${batches} batches, ${round(settleS)} s = ${fmt(Math.round(summary.bets_seen / settleS))} bets/s` +
      `${summary.problems.length ? `; PROBLEMS: ${summary.problems.join('; ')}` : ''}`);

    // Delivery: until the last call settlement queued is delivered. The outbox's statistics still say
    // what autovacuum last saw (no call pending); BENCH_ANALYZE=1 refreshes them first, as its next
    // analyze would, to show delivery without that effect.
    let analyzeS: number | null = null;
    if (analyze && !during) {
      const a0 = performance.now();
      await pool.query('ANALYZE wallet_calls');
      analyzeS = (performance.now() - a0) / 1000;
      log(`ANALYZE wallet_calls (BENCH_ANALYZE=1): ${round(analyzeS)} s, not counted`);
    }
    started ??= await startWorker();
    if (!during) for (const meter of Object.values(meters)) await meter.since();
    await waitDelivered(pool, tenantId, 60_000);
    const deliverCpu = { postgres: await meters.postgres.used(), sandbox: await meters.sandbox.used(), worker: await meters.worker.used() };
    const { rows: [span] } = await pool.query<{ calls: number; first: Date; last: Date }>(
      'SELECT count(*)::int AS calls, min(created_at) AS first, max(finished_at) AS last FROM wallet_calls WHERE tenant_id = $1 AND seq > 3', [tenantId]);
    const last = span!.last.getTime();
    const deliverS = during ? (last - t0) / 1000 - settleS : (last - started.started) / 1000;
    const deliverSpan = during ? (last - span!.first.getTime()) / 1000 : deliverS;
    const totalS = during ? (last - t0) / 1000 : settleS + deliverS;
    log(`delivery (${during ? 'worker running throughout' : `worker started after settling, start-up ${round(started.startup)} s not counted`}): ` +
      `${fmt(span!.calls)} calls, ${during ? `last delivered ${round(deliverS)} s after settling ended; ` : ''}${round(deliverSpan)} s = ${fmt(Math.round(span!.calls / deliverSpan))} calls/s`);
    log(`total: ${round(totalS)} s from the final result to the last settleBet delivered (load average ${loadBefore} before, ${round(os.loadavg()[0]!)} after)`);
    log(`CPU while settling: bench ${round(settleCpu.bench, 1)} s, PostgreSQL ${round(settleCpu.postgres, 1)} s${during ? `, worker ${round(settleCpu.worker, 1)} s` : ''}; ` +
      `${during ? 'from the result to the end' : 'while delivering'}: worker ${round(deliverCpu.worker, 1)} s, sandbox ${round(deliverCpu.sandbox, 1)} s, PostgreSQL ${round(deliverCpu.postgres, 1)} s`);

    // Where settling's time went, per batch: statements timed by kind as the client waits for them,
    // the enqueue and facts calls whole; planning is what is left (and is measured alone below).
    const stat = (kind: string) => timing.stats.get(kind) ?? { n: 0, ms: 0 };
    const sqlKinds = [...timing.stats].filter(([kind]) => !kind.startsWith('call: '));
    const statementsRun = sqlKinds.reduce((sum, [, s]) => sum + s.n, 0);
    const thousands = bets / 1000;
    const perBatch = statementsRun / thousands;
    const phases: Array<[string, number, string]> = [
      ['page + lock', stat('settlement_race_page').ms + stat('settlement_lock_bets').ms, 'settlement_race_page, settlement_lock_bets'],
      ['legs + race facts', stat('settlement_legs').ms + stat('call: catalogue.raceFacts').ms, 'settlement_legs, catalogue_race_facts'],
      ['enqueue', stat('call: wallet.enqueue').ms,
        `${fmt(Math.round(stat('call: wallet.enqueue').n / thousands))} calls: placement guard ${round(stat('enqueue: placement guard').ms / thousands, 1)} ms + ` +
        `call row ${round(stat('enqueue: call row').ms / thousands, 1)} ms waiting on PostgreSQL, the rest JavaScript`],
      ['apply', stat('settlement_apply').ms, 'settlement_apply'],
      ['job + transaction', stat('job lock').ms + stat('job advance').ms + stat('begin/commit').ms + stat('pending jobs').ms, 'job lock, job advance, BEGIN/COMMIT, pending jobs'],
    ];
    const named = new Set(['settlement_race_page', 'settlement_lock_bets', 'settlement_legs', 'catalogue_race_facts', 'enqueue: placement guard',
      'enqueue: call row', 'settlement_apply', 'job lock', 'job advance', 'begin/commit', 'pending jobs']);
    const outside = sqlKinds.filter(([kind]) => !named.has(kind)).reduce((sum, [, s]) => sum + s.ms, 0); // recording the result
    const accounted = phases.reduce((sum, [, ms]) => sum + ms, 0) + outside;
    phases.splice(2, 0, ['plan (the rest: JavaScript)', settleS * 1000 - accounted, 'planSettlement, wallet calls, history details']);
    const inSql = sqlKinds.reduce((sum, [, s]) => sum + s.ms, 0);
    log(`settling per 1,000 bets (one batch; ${batches} batches in all): ${round((settleS * 1000 - outside) / thousands, 1)} ms, ${fmt(Math.round(perBatch))} statements; ` +
      `${round(inSql / 1000)} s of ${round(settleS)} s waiting on statements`);
    for (const [phase, ms, what] of phases) log(`  ${phase.padEnd(28)} ${String(round(ms / thousands, 1)).padStart(8)} ms  (${what})`);
    log(`  recording the result: ${round(outside, 1)} ms once. Statements:`);
    for (const [kind, s] of sqlKinds.sort((a, b) => b[1].ms - a[1].ms)) {
      log(`    ${kind.padEnd(40)} ${String(s.n).padStart(8)} × ${round(s.ms / s.n, 3)} ms = ${round(s.ms / 1000)} s`);
    }
    const profile = process.env.BENCH_PROFILE === '0' ? undefined : await planAlone(pool, services);
    if (profile) log(`planning alone (every bet planned again in memory, best of 3): ${round(profile.us, 1)} µs of CPU per bet = ${round(profile.us, 1)} ms per 1,000 bets`);

    // Verify: every bet settled exactly once, at the wallet too.
    const check = await checkSettledOnce(pool, tenantId, { meetingId: MEETING, raceNumber: RACE }, {
      effects: async () => new Map((await sandbox.ask<{ effects: Array<[string, number]> }>({ effects: true })).effects),
      balances: async (ids) => new Map((await sandbox.ask<{ balances: Array<[string, { cash: string; bonus: string; reserved: string }]> }>({ balances: ids })).balances),
    }, OPENING, { walletExclusive: true });
    const ok = check.problems.length === 0 && summary.problems.length === 0 && check.bets === bets;
    if (ok) log(`verified: ${fmt(check.bets)} bets settled exactly once; ${fmt(check.users)} users' wallet balances match the calls delivered; every transaction took effect once`);
    else log(`\n*** SETTLEMENT CHECK FAILED ***\n${[...summary.problems, ...check.problems].join('\n')}\n`);

    const figures = {
      bench: 'settlement', date: new Date().toISOString().slice(0, 10), ok, delivery: during ? 'during' : 'after', analyze_before_delivery_s: analyzeS === null ? null : round(analyzeS), bets, batches,
      bets_changed: summary.bets_changed, calls: span!.calls, calls_by_op: check.calls,
      settle_s: round(settleS), settle_bets_per_s: Math.round(bets / settleS),
      deliver_s: round(deliverS), deliver_calls_per_s: Math.round(span!.calls / deliverSpan), total_s: round(totalS),
      worker_startup_s: round(started.startup), statements_per_batch: Math.round(perBatch), settle_sql_s: round(inSql / 1000),
      settle_ms_per_1000_bets: Object.fromEntries(phases.map(([phase, ms]) => [phase.split(' (')[0], round(ms / thousands, 1)])),
      plan_us_per_bet: profile ? round(profile.us, 1) : null,
      cpu_s: {
        settling: { bench: round(settleCpu.bench, 1), postgres: round(settleCpu.postgres, 1), ...(during && { worker: round(settleCpu.worker, 1) }) },
        [during ? 'result_to_end' : 'delivering']: { worker: round(deliverCpu.worker, 1), sandbox: round(deliverCpu.sandbox, 1), postgres: round(deliverCpu.postgres, 1) },
      },
      wallet_latency_ms: Number(process.env.BENCH_WALLET_LATENCY ?? 0),
      node: process.versions.node, cores: os.cpus().length, load_avg_1m: { before: loadBefore, after: round(os.loadavg()[0]!) },
      postgres: (await pool.query<{ v: string }>("SELECT split_part(version(), ' on ', 1) AS v")).rows[0]!.v,
    };
    process.stdout.write(`${JSON.stringify(figures)}\n`);
    return ok ? 0 : 1;
  } finally {
    if (worker && worker.child.exitCode === null) {
      const exited = new Promise((resolve) => worker!.child.once('exit', resolve));
      worker.child.kill('SIGTERM');
      await exited;
    }
    sandbox.child.kill('SIGTERM');
    await services.close();
    await pool.end();
    await scratch.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** CPU per bet of planSettlement and the calls of every bet of the race, in memory: the JavaScript share of a batch. */
async function planAlone(pool: Pool, services: ReturnType<typeof createServices>): Promise<{ us: number }> {
  const { rows: keys } = await pool.query<sq.BetKey>('SELECT DISTINCT tenant_id, bet_id FROM bet_legs WHERE meeting_id = $1 AND race_number = $2', [MEETING, RACE]);
  const client = await pool.connect();
  try {
    const bets = (await sq.lockTakenBets(client, keys)).map((b) => ({ ...b, status: 'accepted' as const, payout: '0.00', settled_at: null, result: null }));
    const legs = await sq.legsOfKeys(client, bets);
    const facts = await services.catalogue.raceFacts([{ meetingId: MEETING, raceNumber: 1 }, { meetingId: MEETING, raceNumber: RACE }], client);
    const now = new Date();
    let best = Infinity;
    for (let attempt = 0; attempt < 3; attempt++) {
      const cpu = process.cpuUsage();
      let calls = 0;
      for (const bet of bets) {
        const plan = planSettlement(bet, legs.get(`${bet.tenant_id}:${bet.bet_id}`) ?? [], facts, now, 'result');
        calls += plan.moves.map((m) => callOf(bet, m)).length;
        JSON.stringify(plan.change?.detail); // as applyChanges sends it
      }
      const used = process.cpuUsage(cpu);
      if (calls !== bets.length) throw new Error(`planning alone gave ${calls} calls for ${bets.length} bets`);
      best = Math.min(best, (used.user + used.system) / bets.length);
    }
    return { us: best };
  } finally {
    client.release();
  }
}

process.exitCode = await main();
