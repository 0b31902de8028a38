// npm run bench:upload-storm — latency of a storm of concurrent uploads of ONE race: N uploads of
// the same realistic 1,000 bets (each upload with its own amounts, so every one changes every bet)
// sent at once to `bin/wagerline serve` in its own process, for N = 8 and 32. Uploads of one race
// queue on a lock (docs/upload.md), so the worst latency grows with N × one upload's time.
// Uses DATABASE_URL's server (a scratch database is created and dropped) or an embedded
// PostgreSQL in a temporary directory. BENCH_STORM_ROUNDS storms per size (default 3), each on a
// new race. Last line: one JSON object with the figures.
import { performance } from 'node:perf_hooks';
import { createPool, type Pool } from '../src/db/pool.ts';
import { percentile, round } from './measure.ts';
import { scratchDatabase } from './scratch.ts';
import type { Pool as HttpPool } from 'undici';
import { startUploadTarget, type Serve } from './serve.ts';
import { buildBatch } from '../test/factories/bet-factory.ts';

const BATCH = 1000;
const SIZES = [8, 32];
const ROUNDS = Number(process.env.BENCH_STORM_ROUNDS ?? 3);

/** N bodies of one race: the same bets, upload k with every stake 1 + k/100 of the generated one. */
function stormBodies(meetingId: number, n: number, betTime: string): string[] {
  const batch = buildBatch({ meetingId, raceNumber: 1, count: BATCH, seed: meetingId, idPrefix: `st${meetingId}`, time: betTime });
  return Array.from({ length: n }, (_, k) => JSON.stringify({
    ...batch,
    bets: batch.bets.map((b) => ({ ...b, amount: Math.round(Number(b.amount) * (100 + k)) / 100, net_result: null })),
  }));
}

interface Storm { p50_ms: number; p99_ms: number; max_ms: number; storm_s: number; uploads: number }

/** Sends every body at once; per-request latency percentiles over all rounds. */
async function storms(http: HttpPool, token: string, rounds: string[][]): Promise<Storm> {
  const latencies: number[] = [];
  let wall = 0;
  for (const bodies of rounds) {
    const t0 = performance.now();
    await Promise.all(bodies.map(async (body) => {
      const s = performance.now();
      const res = await http.request({ path: '/public/uploadRaceV2', method: 'POST', body,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
      const out = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`upload answered ${res.statusCode}: ${out.slice(0, 300)}`);
      latencies.push(performance.now() - s);
    }));
    wall += performance.now() - t0;
  }
  latencies.sort((a, b) => a - b);
  return { p50_ms: round(percentile(latencies, 50), 0), p99_ms: round(percentile(latencies, 99), 0), max_ms: round(latencies.at(-1)!, 0),
    storm_s: Math.round(wall / rounds.length / 10) / 100, uploads: latencies.length };
}

async function main(): Promise<void> {
  const scratch = await scratchDatabase('storm');
  const url = new URL(scratch.url);
  let serve: Serve | undefined;
  let pool: Pool | undefined;
  try {
    pool = createPool(url.toString(), 2);
    const target = await startUploadTarget(scratch.url, pool, Math.max(...SIZES));
    serve = target.serve;
    const { http, token } = target;
    const betTime = new Date(Date.now() - 3600_000).toISOString().replace('Z', '+00:00');
    let meeting = 200_000;
    console.log(`storms of concurrent uploads of one ${BATCH}-bet race, ${ROUNDS} per size; database ${process.env.DATABASE_URL ? 'DATABASE_URL server' : 'embedded PostgreSQL'}`);
    await storms(http, token, [stormBodies(++meeting, 4, betTime)]); // warm-up
    const figures: Record<string, unknown> = { database: process.env.DATABASE_URL ? 'DATABASE_URL' : 'embedded', rounds: ROUNDS };
    for (const n of SIZES) {
      const run = await storms(http, token, Array.from({ length: ROUNDS }, () => stormBodies(++meeting, n, betTime)));
      figures[`storm_${n}`] = run;
      console.log(`storm of ${n}: p50 ${run.p50_ms} ms, p99 ${run.p99_ms} ms, max ${run.max_ms} ms per upload; ${run.storm_s} s per storm (${run.uploads} uploads)`);
    }
    await http.close();
    console.log(JSON.stringify(figures));
  } finally {
    await serve?.stop();
    await pool?.end();
    await scratch.drop();
  }
}

await main();
