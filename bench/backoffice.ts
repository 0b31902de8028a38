// npm run bench:backoffice — getBets of 100 bet ids with every field, over a database of a million
// bets (BENCH_BETS), through `wagerline serve` (POST /backoffice/query: x-api-key, bearer token,
// GraphQL with its limits and loaders) next to a plain Fastify JSON route running the same reads
// (bench/backoffice-plain.ts, in the bench only), each in a process of its own, at concurrency 1
// and 8 (BENCH_CONCURRENCY) for BENCH_SECONDS each. Reports requests/s, p50 and p99 of each, the
// ratio of GraphQL to plain throughput, and the CPU each request cost the server, PostgreSQL and
// the load generator. The bets are written by set-based SQL (test/factories/bulk-bets.ts):
// accepted WIN bets, one leg, two history entries each. Uses
// DATABASE_URL's server (a scratch database is created and dropped) or an embedded PostgreSQL.
// BENCH_FLOOR=1 (npm run bench:backoffice-floor) adds two rows from bench/backoffice-floor-server.ts
// (a process of its own): `floor`, the whole answer built as JSON text by ONE SQL statement and sent
// as-is, and `bare`, a fixed answer of the same size with no database; a table goes before the JSON.
// Last line: one JSON object with the figures.
import { BET_FIELDS } from '../test/helpers/backoffice-fields.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Pool as HttpPool } from 'undici';
import { createPool } from '../src/db/pool.ts';
import { insertBulkBets } from '../test/factories/bulk-bets.ts';
import { freePort } from '../test/helpers/net.ts';
import { scratchDatabase } from './scratch.ts';
import { cpuMeter, numbersFromEnv, percentile, round } from './measure.ts';
import { startServe } from './serve.ts';
import { benchServices } from './services.ts';

const BETS = Number(process.env.BENCH_BETS ?? 1_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const PAGE = 100;
const CHUNK = 50_000;

/** getBets with every field of the schema. */
const GET_BETS = `query Bets($input: GetBetsInput!) { getBets(input: $input) {
  bets { ${BET_FIELDS} }
  pagination { last_id count has_more } } }`;

/** The floor rows (bench/backoffice-floor-server.ts), opt-in: BENCH_FLOOR=1 (npm run bench:backoffice-floor). */
const FLOOR = process.env.BENCH_FLOOR === '1';

interface Run {
  target: 'graphql' | 'plain' | 'floor' | 'bare'; concurrency: number; requests: number; requests_per_s: number; p50_ms: number; p99_ms: number;
  /** Size of the last answer, bytes. */
  answer_bytes: number;
  /** CPU per request of the process answering, of the database's backends and of this load generator. */
  cpu_ms_per_request: { server: number; postgres: number; client: number };
}

/** A bench route server (bench/backoffice-plain.ts, bench/backoffice-floor-server.ts) in a process of its own. */
function startRoute(file: string, env: Record<string, string>): Promise<{ child: ChildProcess; url: string; stop(): Promise<void> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, file)], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    const stop = async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    };
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve({ child, url: JSON.parse(out.slice(0, out.indexOf('\n'))).url, stop });
    });
    child.on('exit', (code) => reject(new Error(`${file} exited with ${code}`)));
  });
}

interface Target { name: Run['target']; url: string; pid: number }

type Request = (i: number) => { path: string; body: string; headers: Record<string, string> };

async function load(target: Target, backends: () => Promise<number[]>, concurrency: number, request: Request, check: (text: string) => boolean): Promise<Run> {
  const { name, url } = target;
  const http = new HttpPool(url, { connections: concurrency, pipelining: 1 });
  let bytes = 0;
  const one = async (i: number) => {
    const r = request(i);
    const res = await http.request({ method: 'POST', ...r });
    const text = await res.body.text();
    if (res.statusCode !== 200 || !check(text)) throw new Error(`${name} request ${i}: ${res.statusCode} ${text.slice(0, 300)}`);
    bytes = Buffer.byteLength(text);
  };
  // Warm-up: JIT, prepared statements, the pool's connections.
  for (let i = 0; i < 50; i += concurrency) await Promise.all(Array.from({ length: concurrency }, (_, k) => one(i + k)));
  const latencies: number[] = [];
  let next = 0;
  const [server, postgres, client] = await Promise.all([cpuMeter(() => [target.pid]), cpuMeter(backends), cpuMeter(() => [process.pid])]);
  const t0 = performance.now();
  const end = t0 + SECONDS * 1000;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < end) {
      const s = performance.now();
      await one(next++);
      latencies.push(performance.now() - s);
    }
  }));
  const seconds = (performance.now() - t0) / 1000;
  const perRequest = async (meter: { used(): Promise<number> }) => round((await meter.used()) * 1000 / latencies.length, 2);
  const cpu = { server: await perRequest(server), postgres: await perRequest(postgres), client: await perRequest(client) };
  await http.close();
  latencies.sort((a, b) => a - b);
  return {
    target: name, concurrency, requests: latencies.length, requests_per_s: Math.round(latencies.length / seconds),
    p50_ms: round(percentile(latencies, 50), 1), p99_ms: round(percentile(latencies, 99), 1), answer_bytes: bytes, cpu_ms_per_request: cpu,
  };
}

/** The runs as a Markdown table, with the CPU each request cost each process and what two cores allow at that cost. */
function table(runs: Run[]): string {
  const head = '| target | c | requests/s | p50 ms | p99 ms | answer KB | CPU ms/req: server | PostgreSQL | load gen | total | 2 cores ÷ total |';
  const rows = runs.map((r) => {
    const c = r.cpu_ms_per_request;
    const total = round(c.server + c.postgres + c.client, 2);
    return `| ${r.target} | ${r.concurrency} | ${r.requests_per_s} | ${r.p50_ms} | ${r.p99_ms} | ${round(r.answer_bytes / 1024, 1)} | ${c.server} | ${c.postgres} | `
      + `${c.client} | ${total} | ${total > 0 ? Math.round(2000 / total) : '∞'}/s |`;
  });
  return [head, `|${'---|'.repeat(11)}`, ...rows].join('\n');
}

async function main(): Promise<void> {
  const loadBefore = os.loadavg().map((l) => round(l));
  const scratch = await scratchDatabase('backoffice');
  const pool = createPool(scratch.url, 4);
  const children: Array<{ stop(): Promise<void> }> = [];
  const runs: Run[] = [];
  try {
    const services = benchServices(pool, scratch.url);
    const tenant = await services.tenants.createTenant({ name: 'Bench Back-office' });
    const client = await services.tenants.createClient({ tenantId: tenant.tenant_id, scopes: ['backoffice'] });
    const t0 = performance.now();
    for (let done = 0; done < BETS; done += CHUNK) {
      await insertBulkBets(pool, { tenantId: tenant.tenant_id, count: Math.min(CHUNK, BETS - done), createdAt: new Date(Date.UTC(2026, 0, 1) + done * 10) });
    }
    await pool.query('VACUUM ANALYZE bets');
    await pool.query('ANALYZE');
    process.stderr.write(`${BETS} bets written in ${round((performance.now() - t0) / 1000, 1)} s\n`);
    // Pages of 100 random bet ids (a set per request, cycled).
    // About 20,000 of them whatever BENCH_BETS is (2% of a million; all of a small database).
    const percent = Math.min(100, (20_000 * 100) / BETS);
    const { rows } = await pool.query<{ bet_id: string }>(`SELECT bet_id FROM bets TABLESAMPLE BERNOULLI (${percent}) LIMIT 20000`);
    const sets = Array.from({ length: Math.floor(rows.length / PAGE) }, (_, i) => rows.slice(i * PAGE, (i + 1) * PAGE).map((r) => r.bet_id));
    if (!sets.length) throw new Error(`BENCH_BETS=${BETS}: fewer than ${PAGE} bets to ask for`);

    const env = { DATABASE_URL: scratch.url, WAGERLINE_SECRET_KEY: randomBytes(32).toString('base64'), LOG_LEVEL: 'warn', WAGERLINE_WALLET_WORKER: 'off' };
    const serve = await startServe({ ...env, PORT: String(await freePort()), HOST: '127.0.0.1' });
    children.push(serve);
    const plain = await startRoute('backoffice-plain.ts', { DATABASE_URL: scratch.url, PORT: String(await freePort()) });
    children.push(plain);
    const floor = FLOOR ? await startRoute('backoffice-floor-server.ts', { DATABASE_URL: scratch.url, PORT: String(await freePort()) }) : undefined;
    if (floor) children.push(floor);
    const tokenRes = await fetch(`${serve.url}/oauth/token`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret }),
    });
    const { access_token: token } = (await tokenRes.json()) as { access_token: string };
    const graphql = (i: number) => ({
      path: '/backoffice/query',
      headers: { 'content-type': 'application/json', 'x-api-key': client.client_id, authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: GET_BETS, variables: { input: { tenant: { ids: [tenant.tenant_id], bet_ids: sets[i % sets.length] }, pagination: { limit: PAGE } } } }),
    });
    const direct = (i: number, route = '/bets') => ({
      path: route, headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tenant_ids: [tenant.tenant_id], bet_ids: sets[i % sets.length] }),
    });
    const full = (text: string) => text.includes(`"count":${PAGE}`);
    // The database's backends serving this scratch database (the pools' connections).
    const backends = async () => (await pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()')).rows.map((r) => r.pid);
    const targets: Array<[Target, Request]> = [[{ name: 'graphql', url: serve.url, pid: serve.child.pid! }, graphql], [{ name: 'plain', url: plain.url, pid: plain.child.pid! }, direct]];
    if (floor) targets.push([{ name: 'floor', url: floor.url, pid: floor.child.pid! }, direct], [{ name: 'bare', url: floor.url, pid: floor.child.pid! }, (i) => direct(i, '/bare')]);
    for (const concurrency of numbersFromEnv('BENCH_CONCURRENCY', [1, 8])) {
      for (const [target, request] of targets) {
        const r = await load(target, backends, concurrency, request, full);
        const cpu = r.cpu_ms_per_request;
        process.stderr.write(`${target.name}, concurrency ${concurrency}: ${r.requests_per_s} requests/s, p50 ${r.p50_ms} ms, p99 ${r.p99_ms} ms; `
          + `CPU per request: server ${cpu.server} ms, PostgreSQL ${cpu.postgres} ms, load generator ${cpu.client} ms\n`);
        runs.push(r);
      }
    }
    await services.close();
  } finally {
    for (const child of children) await child.stop().catch(() => undefined);
    await pool.end();
    await scratch.drop();
  }
  const ratio = (c: number) => {
    const g = runs.find((r) => r.target === 'graphql' && r.concurrency === c);
    const p = runs.find((r) => r.target === 'plain' && r.concurrency === c);
    return g && p ? Math.round((g.requests_per_s / p.requests_per_s) * 100) / 100 : null;
  };
  const concurrencies = [...new Set(runs.map((r) => r.concurrency))];
  if (FLOOR) process.stdout.write(`${table(runs)}\n`);
  process.stdout.write(`${JSON.stringify({ bench: 'backoffice', bets: BETS, page: PAGE, seconds_per_run: SECONDS, runs,
    throughput_ratio: Object.fromEntries(concurrencies.map((c) => [`c${c}`, ratio(c)])),
    ...(FLOOR && { node: process.versions.node, cores: os.cpus().length, load_avg_before: loadBefore }) })}\n`);
}

await main();
