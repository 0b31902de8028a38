// npm run bench:placement-floor — the least work any bet placement must do on this machine, with no
// wagerline code in the request path, to tell whether the target of 1,000 placements/s (0 ms
// wallet latency, 2 cores) is reachable by any design that honours the wallet protocol: per bet a
// synchronous reserve to the wallet before the answer, a confirm after it, the bet committed to
// PostgreSQL before the reserve and its outcome committed after. Same shape as bench:bets: the
// reference wallet sandbox in a process of its own (in memory, 0 ms), a minimal Fastify server in a
// process of its own (bench/placement-floor-server.ts), and this load generator (undici, keep-alive).
// Variants: bare (answered at once), http (reserve + confirm), http+1commit (+ the INSERT before the
// reserve), http+2commits (+ the UPDATE after it), graphql+2commits (http+2commits behind the
// product's placeBet mutation over mercurius, the user named by a header) and graphql+jwt+2commits
// (the same, the user from an RS256 token verified per request); concurrency 1 and 16. Reports requests/s, p50,
// p99 and the CPU each request cost each process (/proc), since on a shared 2-core machine the CPU
// per request moves much less than throughput. BENCH_VARIANTS, BENCH_CONCURRENCY (comma-separated)
// and BENCH_REQUESTS select rows and size. PostgreSQL: DATABASE_URL's server (a scratch database,
// dropped after) or an embedded one. Last line: one JSON object with the figures.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { Pool as HttpPool } from 'undici';
import { startCli } from '../test/helpers/cli.ts';
import { numbersFromEnv, percentile, postgresPids, round, runCpu } from './measure.ts';
import { scratchDatabase } from './scratch.ts';
import { FLOOR_CLIENT_ID } from './placement-floor-graphql.ts';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 5000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 500);
const CLIENT = { id: 'bench', secret: 'bench-secret-123' };
const VARIANTS = { bare: '/bare', http: '/http', 'http+1commit': '/http-1commit', 'http+2commits': '/http-2commits',
  'graphql+2commits': '/graphql', 'graphql+jwt+2commits': '/graphql-jwt' } as const;
type Variant = keyof typeof VARIANTS;
const USERS = Array.from({ length: 100 }, () => randomUUID());
/** The body bench:bets sends: a WIN bet of one leg. */
const PLACE = 'mutation P($input: PlaceBetInput!) { placeBet(input: $input) { id status } }';
const placeBody = (i: number) => JSON.stringify({ query: PLACE, variables: { input: {
  idempotencyKey: `floor-${i}`, type: 'WIN', legs: [{ meetingId: 990001, raceNumber: 1, selections: [[1 + (i % 12)]], price: 3 + (i % 12) }], stake: 1,
} } });

/** A key pair and one RS256 access token per user, signed once before the runs, as a tenant's identity provider would. */
async function userTokens(): Promise<{ jwk: string; tokens: string[] }> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const tokens = await Promise.all(USERS.map((user) => new SignJWT({ client_id: FLOOR_CLIENT_ID, token_use: 'access', username: user })
    .setProtectedHeader({ alg: 'RS256', kid: 'floor' }).setAudience(user).setIssuedAt().setExpirationTime('2h').sign(privateKey)));
  return { jwk: JSON.stringify({ ...await exportJWK(publicKey), kid: 'floor', alg: 'RS256' }), tokens };
}

/** The request of variant for the i-th placement, and what its answer must contain. */
function requestOf(variant: Variant, i: number, tokens: string[]): { headers: Record<string, string>; body: string; expect: string } {
  const user = USERS[i % USERS.length]!;
  const headers = { 'content-type': 'application/json' };
  if (variant === 'graphql+2commits') return { headers: { ...headers, 'x-user-id': user }, body: placeBody(i), expect: '"ACCEPTED"' };
  if (variant === 'graphql+jwt+2commits') {
    return { headers: { ...headers, authorization: `Bearer ${tokens[i % tokens.length]}` }, body: placeBody(i), expect: '"ACCEPTED"' };
  }
  return { headers, body: JSON.stringify({ userId: user, stake: 1 }), expect: '"ok":true' };
}

interface Run {
  variant: Variant; concurrency: number; requests: number; requests_per_s: number; p50_ms: number; p99_ms: number;
  /** From the first request to the last confirm finished (confirms are sent without waiting). */
  confirms_done_after_s: number;
  /** CPU per request: the server, the sandbox, the scratch database's backends, PostgreSQL's background processes, this load generator. */
  cpu_ms_per_request: { server: number; sandbox: number; postgres: number; postgres_bg: number; load_generator: number; total: number };
  /** Share of both cores busy during the run, whatever process used them (/proc/stat). */
  machine_busy: number;
  load_avg_1m: number;
}

/** The sandbox exactly as bench:bets starts it: `wagerline wallet-sandbox --memory`, 0 ms latency. */
function startSandbox(): Promise<{ child: ChildProcess; url: string }> {
  return startCli(['wallet-sandbox', '--memory', '--port', '0', '--client-id', CLIENT.id, '--client-secret', CLIENT.secret,
    '--latency-ms', '0', '--opening-balance', '1000000'], {}).then(({ child, first }) => ({ child, url: first.url }));
}

function startServer(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'placement-floor-server.ts')],
      { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve({ child, url: JSON.parse(out.slice(0, out.indexOf('\n'))).url });
    });
    child.on('exit', (code) => reject(new Error(`placement-floor server exited with ${code}`)));
  });
}

const stop = async (child: ChildProcess) => {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
};

interface Procs { server: number; sandbox: number; db: pg.Client; tokens: string[] }

async function run(http: HttpPool, procs: Procs, variant: Variant, concurrency: number): Promise<Run> {
  const one = async (i: number) => {
    const { headers, body, expect } = requestOf(variant, i, procs.tokens);
    const res = await http.request({ method: 'POST', path: VARIANTS[variant], headers, body });
    const text = await res.body.text();
    if (res.statusCode !== 200 || !text.includes(expect)) throw new Error(`${variant} request ${i}: ${res.statusCode} ${text.slice(0, 300)}`);
  };
  const drive = async (count: number, onEach?: (ms: number) => void) => {
    let next = 0;
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const s = performance.now();
        await one(next++);
        onEach?.(performance.now() - s);
      }
    }));
  };
  const confirms = async () => {
    const res = await http.request({ method: 'GET', path: '/confirms' });
    return (await res.body.json()) as { sent: number; done: number; failed: number; error: string };
  };
  const drained = async () => {
    for (;;) {
      const c = await confirms();
      if (c.failed) throw new Error(`${c.failed} confirms failed: ${c.error}`);
      if (c.done === c.sent) return;
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  // Warm-up: JIT, the pools' connections, the named statements prepared on each connection.
  await drive(WARMUP);
  await drained();

  const { backends, background } = postgresPids(procs.db);
  const loadAvg = os.loadavg()[0]!;
  const run = await runCpu({ server: () => [procs.server], sandbox: () => [procs.sandbox], postgres: backends, postgres_bg: background });
  const latencies: number[] = [];
  const t0 = performance.now();
  await drive(REQUESTS, (ms) => latencies.push(ms));
  const seconds = (performance.now() - t0) / 1000;
  await drained();
  const doneAfter = (performance.now() - t0) / 1000;
  const { cpu, busy } = await run.per(REQUESTS);
  latencies.sort((a, b) => a - b);
  return {
    variant, concurrency, requests: REQUESTS, requests_per_s: Math.round(REQUESTS / seconds),
    p50_ms: round(percentile(latencies, 50), 2), p99_ms: round(percentile(latencies, 99), 2), confirms_done_after_s: round(doneAfter, 2),
    cpu_ms_per_request: cpu, machine_busy: busy, load_avg_1m: round(loadAvg),
  };
}

function table(runs: Run[]): string {
  const head = '| variant | c | requests/s | p50 ms | p99 ms | confirms done s | CPU ms/req: server | sandbox | PG backends | PG bg | load gen | total | 2 cores ÷ total | machine busy |';
  const rows = runs.map((r) => {
    const c = r.cpu_ms_per_request;
    return `| ${r.variant} | ${r.concurrency} | ${r.requests_per_s} | ${r.p50_ms} | ${r.p99_ms} | ${r.confirms_done_after_s} | ${c.server} | ${c.sandbox} | `
      + `${c.postgres} | ${c.postgres_bg} | ${c.load_generator} | ${c.total} | ${Math.round(2000 / c.total)}/s | ${Math.round(r.machine_busy * 100)}% |`;
  });
  return [head, `|${'---|'.repeat(14)}`, ...rows].join('\n');
}

async function main(): Promise<void> {
  const loadBefore = os.loadavg()[0]!;
  const scratch = await scratchDatabase('floor');
  const db = new pg.Client({ connectionString: scratch.url });
  const runs: Run[] = [];
  const children: ChildProcess[] = [];
  let http: HttpPool | undefined;
  try {
    await db.connect();
    const sandbox = await startSandbox();
    children.push(sandbox.child);
    const { jwk, tokens } = await userTokens();
    const server = await startServer({ DATABASE_URL: scratch.url, WALLET_URL: sandbox.url, WALLET_CLIENT_ID: CLIENT.id, WALLET_CLIENT_SECRET: CLIENT.secret,
      FLOOR_JWK: jwk });
    children.push(server.child);
    const procs = { server: server.child.pid!, sandbox: sandbox.child.pid!, db, tokens };
    const variants = process.env.BENCH_VARIANTS ? (process.env.BENCH_VARIANTS.split(',') as Variant[]) : (Object.keys(VARIANTS) as Variant[]);
    for (const concurrency of numbersFromEnv('BENCH_CONCURRENCY', [1, 16])) {
      http = new HttpPool(server.url, { connections: concurrency + 1, pipelining: 1 });
      for (const variant of variants) {
        if (!(variant in VARIANTS)) throw new Error(`unknown variant ${variant}; one of ${Object.keys(VARIANTS).join(', ')}`);
        const r = await run(http, procs, variant, concurrency);
        process.stderr.write(`${variant}, concurrency ${concurrency}: ${r.requests_per_s} requests/s, p50 ${r.p50_ms} ms, p99 ${r.p99_ms} ms, `
          + `CPU ${r.cpu_ms_per_request.total} ms/request, machine ${Math.round(r.machine_busy * 100)}% busy\n`);
        runs.push(r);
      }
      await http.close();
      http = undefined;
    }
  } finally {
    await http?.close();
    for (const child of children.reverse()) await stop(child).catch(() => undefined);
    await db.end().catch(() => undefined);
    await scratch.drop();
  }
  process.stdout.write(`${table(runs)}\n`);
  process.stdout.write(`${JSON.stringify({ bench: 'placement-floor', requests_per_run: REQUESTS, warmup: WARMUP, runs,
    node: process.versions.node, cores: os.cpus().length, load_avg_1m_before: round(loadBefore) })}\n`);
}

await main();
