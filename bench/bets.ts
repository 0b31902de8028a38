// npm run bench:bets — bet placements per second end to end: one `wagerline serve` process (with
// its wallet worker), the reference wallet sandbox in a process of its own, WIN bets placed through
// POST /graphql with RS256 user tokens, at 0 ms and 20 ms wallet latency and concurrency 1 and 16.
// A placement is counted when its answer is back (the reserve asked, the confirm queued); the
// confirms' delivery is reported apart, and `confirmed_per_s` (placements ÷ the time until the last
// confirm was delivered) is the rate sustained with the wallet's work included: a burst can be
// answered faster than its confirms are sent, a steady load cannot. Each row also reports the CPU a placement cost each process
// (/proc, as bench:placement-floor measures it, so the two compare): `serve`, the sandbox,
// PostgreSQL's backends of the scratch database and its background processes apart, and this load
// generator; and the share of both cores busy (/proc/stat), whatever process used them. CPU is
// measured from the first placement until the last confirm is delivered, since a placement's full
// cost includes its confirm's delivery by the worker. Serve starts fresh for each row with no
// warm-up, so its JIT and its pool's connections are in the figures. Each row also gives the share
// of bets taken in one transaction with others (serve's /metrics). Uses DATABASE_URL's server (a
// scratch database is created and dropped) or an embedded PostgreSQL in a temporary directory.
// BENCH_SERVES=N starts N serve processes on the one database, the load generator's loops spread
// over them as a load balancer would (CPU and /metrics summed over them).
// BENCH_LATENCIES and BENCH_CONCURRENCY (comma-separated) run some of the rows; BENCH_PLACEMENTS
// sets the run's size; BENCH_WARMUP placements (default 0) go first, unmeasured, so that a row
// can show the steady state of a process V8 has finished compiling. BENCH_REFUSED splits a
// placement's cost: the measured requests (not the warm-up) are refused, `stake` at the input
// check (a third decimal: nothing read or written — what HTTP, GraphQL and the user's token cost),
// `runner` after the race's first read (a runner the race does not have); each must be answered
// with that error. Last line: one JSON object.
import type { ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { Pool as HttpPool } from 'undici';
import { runCli, startCli } from '../test/helpers/cli.ts';
import { TestJwks } from '../test/helpers/jwks.ts';
import { freePort } from '../test/helpers/net.ts';
import { scratchDatabase } from './scratch.ts';
import { numbersFromEnv, percentile, postgresPids, round, runCpu } from './measure.ts';
import { startServe } from './serve.ts';

const PLACEMENTS = Number(process.env.BENCH_PLACEMENTS ?? 2000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 0);
/** serve processes on the one database, each loop of the load generator bound to one of them (docs/operations.md: one per core). */
const SERVES = Number(process.env.BENCH_SERVES ?? 1);
if (!Number.isInteger(SERVES) || SERVES < 1) throw new Error(`BENCH_SERVES must be a whole number of at least 1, got "${process.env.BENCH_SERVES}"`);
/** The error each measured request must get instead of a bet (BENCH_REFUSED), or none. */
const REFUSALS = { stake: 'INVALID_STAKE', runner: 'RUNNER_NOT_FOUND' } as const;
const REFUSED = process.env.BENCH_REFUSED as keyof typeof REFUSALS | undefined;
if (REFUSED !== undefined && !(REFUSED in REFUSALS)) throw new Error(`BENCH_REFUSED must be stake or runner, got "${REFUSED}"`);
const USERS = 100;
const CLIENT = { id: 'bench', secret: 'bench-secret-123' };
const MEETING = 990001;
const PLACE = 'mutation P($input: PlaceBetInput!) { placeBet(input: $input) { id status } }';

interface Run {
  latency_ms: number; concurrency: number; placements_per_s: number; p50_ms: number; p99_ms: number; delivered_after_s: number;
  /** Placements ÷ the time until the last confirm was delivered: the rate the service sustains, wallet calls included. */
  confirmed_per_s: number;
  /** CPU per placement, until the last confirm delivered: serve, the sandbox, the scratch database's backends, PostgreSQL's background processes, this load generator. */
  cpu_ms_per_placement: { serve: number; sandbox: number; postgres: number; postgres_bg: number; load_generator: number; total: number };
  /** Share of both cores busy over the same span, whatever process used them (/proc/stat). */
  cores_busy: number;
  /** Share of the bets taken in a transaction with others (wallet_reserve_takes_total of serve's /metrics). */
  taken_together: number;
}

/** The share of reserves recorded together with others, from the serve processes' /metrics. */
async function takenTogether(pools: HttpPool[]): Promise<number> {
  const texts = await Promise.all(pools.map(async (http) => (await http.request({ method: 'GET', path: '/metrics' })).body.text()));
  const count = (how: string) => texts.reduce((sum, text) =>
    sum + Number(new RegExp(`^wallet_reserve_takes_total\\{how="${how}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0), 0);
  const [together, alone] = [count('together'), count('alone')];
  return together + alone ? round(together / (together + alone), 2) : 0;
}

/**
 * Resolves once no confirm of the tenant is still open (asked every 20 ms). Asked through the open
 * calls' index: a scan of every call, as before, was counted in the row's PostgreSQL figures, and
 * at concurrency 256 (a delivery tail of seconds) cost a sixth as much CPU as the placements.
 */
async function confirmsDelivered(db: pg.Client, tenant: string): Promise<void> {
  for (;;) {
    const { rows } = await db.query(
      "SELECT count(*)::int AS n FROM wallet_calls WHERE tenant_id = $1 AND status IN ('pending', 'sending', 'failed') AND op = 'confirm'", [tenant]);
    if (rows[0].n === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function catalogFile(dir: string): string {
  const runners = Array.from({ length: 12 }, (_, i) => ({ number: i + 1, name: `Runner ${i + 1}`, win: 3 + i, place: 1.5 }));
  const file = path.join(dir, 'bench-day.json');
  writeFileSync(file, JSON.stringify({
    meeting_id: MEETING, date: new Date().toISOString().slice(0, 10), venue: 'Bench Park', jurisdiction: 'VIC', code: 'T',
    races: [{ race_number: 1, start_time: new Date(Date.now() + 6 * 3600_000).toISOString(), products: ['win', 'place'], runners }],
  }));
  return file;
}

function startSandbox(latencyMs: number): Promise<{ child: ChildProcess; url: string }> {
  return startCli(['wallet-sandbox', '--memory', '--port', '0', '--client-id', CLIENT.id, '--client-secret', CLIENT.secret,
    '--latency-ms', String(latencyMs), '--opening-balance', '1000000'], {}).then(({ child, first }) => ({ child, url: first.url }));
}

async function run(env: Record<string, string>, latencyMs: number, concurrency: number, tokens: string[], db: pg.Client): Promise<Run> {
  const sandbox = await startSandbox(latencyMs);
  const tenant = (await runCli(['tenant', 'create', '--name', `bench ${latencyMs} ${concurrency}`], env)).json().tenant_id as string;
  for (const args of [
    ['tenant', 'set-wallet', tenant, '--url', sandbox.url, '--auth', 'client_credentials', '--client-id', CLIENT.id, '--client-secret', CLIENT.secret],
    ['tenant', 'set-auth', tenant, '--mode', 'jwt', '--jwks-url', env.BENCH_JWKS_URL!, '--client-id', 'bench-frontend'],
  ]) {
    const res = await runCli(args, env);
    if (res.code !== 0) throw new Error(`${args.join(' ')}: ${res.stderr}`);
  }
  const serves = await Promise.all(Array.from({ length: SERVES }, async () => startServe({ ...env, PORT: String(await freePort()), LOG_LEVEL: 'warn' })));
  const pools = serves.map((s) => new HttpPool(s.url, { connections: Math.max(Math.ceil(concurrency / SERVES), 1), pipelining: 1 }));
  const latencies: number[] = [];
  const body = (key: string, i: number, refused: typeof REFUSED) => JSON.stringify({ query: PLACE, variables: { input: {
    idempotencyKey: key, type: 'WIN', legs: [{ meetingId: MEETING, raceNumber: 1, selections: [[refused === 'runner' ? 99 : 1 + (i % 12)]], price: 3 + (i % 12) }],
    stake: refused === 'stake' ? 1.001 : 1,
  } } });
  /** Places `count` bets from `concurrency` loops; each answer's latency goes to `into`. */
  const place = async (prefix: string, count: number, into: number[], refused?: typeof REFUSED) => {
    const expected = refused ? `"code":"${REFUSALS[refused]}"` : '"ACCEPTED"';
    let next = 0;
    await Promise.all(Array.from({ length: concurrency }, async (_, loop) => {
      const http = pools[loop % pools.length]!;
      while (next < count) {
        const i = next++;
        const s = performance.now();
        const res = await http.request({ method: 'POST', path: '/graphql', body: body(`${prefix}-${i}`, i, refused),
          headers: { 'content-type': 'application/json', 'x-tenant-id': tenant, authorization: `Bearer ${tokens[i % tokens.length]}` } });
        const text = await res.body.text();
        if (!text.includes(expected)) throw new Error(`placement ${prefix}-${i}: ${text}`);
        into.push(performance.now() - s);
      }
    }));
  };
  // Warm-up, not measured: V8 compiles the hot code for the first tens of seconds of a process.
  await place('warm-up', WARMUP, []);
  await confirmsDelivered(db, tenant);
  const { backends, background } = postgresPids(db);
  const run = await runCpu({ serve: () => serves.map((s) => s.child.pid!), sandbox: () => [sandbox.child.pid!], postgres: backends, postgres_bg: background });
  const t0 = performance.now();
  await place('bench', PLACEMENTS, latencies, REFUSED);
  const seconds = (performance.now() - t0) / 1000;
  await confirmsDelivered(db, tenant);
  const delivered = (performance.now() - t0) / 1000;
  const { cpu, busy } = await run.per(PLACEMENTS);
  const together = await takenTogether(pools);
  await Promise.all(pools.map((p) => p.close()));
  await Promise.all(serves.map((s) => s.stop()));
  sandbox.child.kill('SIGTERM');
  latencies.sort((a, b) => a - b);
  return { latency_ms: latencyMs, concurrency, placements_per_s: Math.round(PLACEMENTS / seconds), p50_ms: round(percentile(latencies, 50), 1),
    p99_ms: round(percentile(latencies, 99), 1), delivered_after_s: round(delivered, 1), confirmed_per_s: Math.round(PLACEMENTS / delivered),
    taken_together: together,
    cpu_ms_per_placement: cpu, cores_busy: busy };
}

async function main(): Promise<void> {
  const scratch = await scratchDatabase('bets');
  const url = new URL(scratch.url);
  const idp = await TestJwks.start('bench-frontend');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wagerline-bench-bets-'));
  const db = new pg.Client({ connectionString: url.toString() });
  const results: Run[] = [];
  try {
    await db.connect();
    const env = { DATABASE_URL: url.toString(), WAGERLINE_SECRET_KEY: randomBytes(32).toString('base64'), WAGERLINE_DATA_DIR: dir,
      LOG_LEVEL: 'warn', BENCH_JWKS_URL: idp.url };
    const imported = await runCli(['catalog', 'import', catalogFile(dir)], env);
    if (imported.code !== 0) throw new Error(imported.stderr);
    const tokens = await Promise.all(Array.from({ length: USERS }, () => idp.token(randomUUID(), { expIn: 7200 })));
    for (const latency of numbersFromEnv('BENCH_LATENCIES', [0, 20])) {
      for (const concurrency of numbersFromEnv('BENCH_CONCURRENCY', [1, 16])) {
        const r = await run(env, latency, concurrency, tokens, db);
        const c = r.cpu_ms_per_placement;
        process.stderr.write(`latency ${latency} ms, concurrency ${concurrency}: ${r.placements_per_s} ${REFUSED ? `requests refused (${REFUSED})` : 'placements'}/s, p50 ${r.p50_ms} ms, p99 ${r.p99_ms} ms, `
          + `confirms delivered after ${r.delivered_after_s} s (${r.confirmed_per_s} confirmed/s); CPU ms/placement: serve ${c.serve}, sandbox ${c.sandbox}, PostgreSQL ${c.postgres} `
          + `(background ${c.postgres_bg}), load generator ${c.load_generator}, total ${c.total}; cores ${Math.round(r.cores_busy * 100)}% busy; `
          + `${Math.round(r.taken_together * 100)}% of the bets taken together with others\n`);
        results.push(r);
      }
    }
  } finally {
    await db.end().catch(() => undefined);
    await idp.close();
    await scratch.drop();
    rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(`${JSON.stringify({ bench: 'bets', placements_per_run: PLACEMENTS, refused: REFUSED ?? null, runs: results })}\n`);
}

await main();
