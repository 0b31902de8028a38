// npm run bench:upload — validated, stored bets per second through the real upload interface:
// `bin/wagerline serve` in its own process, realistic 1,000-bet V2 batches (pre-serialised, sent
// over HTTP with keep-alive) at concurrency 1 and 4, then raw COPY of the same rows into an
// identical table (same columns and indexes) at the same concurrency, and identical re-uploads.
// Uses DATABASE_URL's server (a scratch database is created and dropped) or an embedded
// PostgreSQL in a temporary directory. Last line: one JSON object with the figures.
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { createPool, type Pool } from '../src/db/pool.ts';
import { percentile, round } from './measure.ts';
import { scratchDatabase } from './scratch.ts';
import { startUploadTarget, type Serve } from './serve.ts';
import { buildBatch } from '../test/factories/bet-factory.ts';
import type { BetColumns } from '../src/modules/intake/batch.ts';
import { validateBatch } from '../src/modules/intake/validate-batch.ts';

const BATCH = 1000;
const BATCHES = { 1: Number(process.env.BENCH_BATCHES_C1 ?? 60), 4: Number(process.env.BENCH_BATCHES_C4 ?? 160) };
const WARMUP = 8;

interface Run { bets_per_s: number; p50_ms: number; p99_ms: number; batches: number }

/** Runs `jobs` with `concurrency` in flight; rate in rows/s and per-job latency percentiles. */
async function timed(jobs: Array<() => Promise<void>>, concurrency: number): Promise<Run> {
  const latencies: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < jobs.length) {
      const job = jobs[next++]!;
      const s = performance.now();
      await job();
      latencies.push(performance.now() - s);
    }
  }));
  const seconds = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  return { bets_per_s: Math.round((jobs.length * BATCH) / seconds), p50_ms: round(percentile(latencies, 50), 1), p99_ms: round(percentile(latencies, 99), 1), batches: jobs.length };
}


// COPY text format of the reported_bets row the upload stores for each validated bet.
const esc = (v: unknown) => (v === null || v === undefined ? '\\N' : typeof v === 'boolean' ? (v ? 't' : 'f')
  : String(v).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r'));
const COPY_COLUMNS: Array<keyof BetColumns> = ['source', 'bet_id', 'leg', 'bet_time', 'bet_type', 'runner_number', 'exotics_selection',
  'user_id', 'user_name', 'user_state', 'terminal_id', 'info_type', 'medium', 'resulted', 'status', 'bonus', 'back_indicator',
  'bet_back_id', 'bet_back_agency', 'bet_back_amount', 'bet_back_revenue', 'bet_back_date', 'amount', 'price', 'payout',
  'net_result', 'currency'];
function copyText(tenantId: string, meetingId: number, c: BetColumns): Buffer {
  const lines: string[] = [];
  for (let i = 0; i < c.bet_id.length; i++) {
    const cells = [tenantId, ...COPY_COLUMNS.map((k) => (c[k] as unknown[])[i]), meetingId, 1, 2, 'bench', '2024-05-01T04:00:00Z',
      '2024-05-01T04:00:00Z', '2024-05-01', '2099-05-03T00:00:00Z', false, 1];
    lines.push(cells.map(esc).join('\t'));
  }
  return Buffer.from(`${lines.join('\n')}\n`);
}

/** COPY … FROM STDIN with node-postgres' own protocol hooks (no extra package). */
function copyIn(client: pg.PoolClient, sql: string, data: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    let failed: Error | undefined;
    const submittable = {
      submit: (connection: { query(text: string): void }) => connection.query(sql),
      handleCopyInResponse: (connection: { sendCopyFromChunk(b: Buffer): void; endCopyFrom(): void }) => {
        connection.sendCopyFromChunk(data);
        connection.endCopyFrom();
      },
      handleCommandComplete: () => undefined,
      handleError: (error: Error) => { failed = error; },
      handleReadyForQuery: () => (failed ? reject(failed) : resolve()),
    };
    client.query(submittable as unknown as pg.QueryConfig);
  });
}

async function main(): Promise<void> {
  const scratch = await scratchDatabase('upload');
  const url = new URL(scratch.url);
  let serve: Serve | undefined;
  let pool: Pool | undefined;
  try {
    pool = createPool(url.toString(), 8);
    const target = await startUploadTarget(scratch.url, pool, 8);
    serve = target.serve;
    const { http, token, tenantId } = target;

    let meeting = 100_000;
    // Placed an hour ago: on time, as almost every real upload is (late rows also feed a partial index).
    const betTime = new Date(Date.now() - 3600_000).toISOString().replace('Z', '+00:00');
    const makeBatches = (n: number) => Array.from({ length: n }, () => {
      const batch = buildBatch({ meetingId: String(++meeting), raceNumber: 1, count: BATCH, seed: meeting, idPrefix: `m${meeting}`, time: betTime });
      return { meetingId: meeting, body: JSON.stringify(batch), batch };
    });
    const send = (body: string, expectCreated?: number) => async () => {
      const res = await http.request({ path: '/public/uploadRaceV2', method: 'POST', body,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
      const out = (await res.body.json()) as { created: number; unchanged: number };
      if (res.statusCode !== 200 || (expectCreated !== undefined && out.created !== expectCreated)) {
        throw new Error(`upload answered ${res.statusCode}: ${JSON.stringify(out).slice(0, 300)}`);
      }
    };
    console.log(`batches of ${BATCH} bets, body ${(makeBatches(1)[0]!.body.length / 1024).toFixed(0)} KiB; database ${process.env.DATABASE_URL ? 'DATABASE_URL server' : 'embedded PostgreSQL'}`);
    await timed(makeBatches(WARMUP).map((b) => send(b.body, BATCH)), 4);

    const figures: Record<string, unknown> = { database: process.env.DATABASE_URL ? 'DATABASE_URL' : 'embedded' };
    const allBatches: ReturnType<typeof makeBatches> = [];
    for (const c of [1, 4] as const) {
      const batches = makeBatches(BATCHES[c]);
      allBatches.push(...batches);
      const run = await timed(batches.map((b) => send(b.body, BATCH)), c);
      figures[`upload_c${c}`] = run;
      console.log(`upload, concurrency ${c}: ${run.bets_per_s} bets/s, p50 ${run.p50_ms} ms, p99 ${run.p99_ms} ms per batch (${run.batches} batches)`);
    }
    const again = await timed(allBatches.slice(0, BATCHES[4]).map((b) => send(b.body, 0)), 4);
    figures.reupload_unchanged_c4 = again;
    console.log(`identical re-upload, concurrency 4: ${again.bets_per_s} bets/s, p50 ${again.p50_ms} ms, p99 ${again.p99_ms} ms`);

    // Raw COPY of the same rows into an identical table (same columns, keys and indexes).
    await pool.query('CREATE TABLE bench_copy (LIKE reported_bets INCLUDING ALL)');
    const now = new Date();
    const copyData = allBatches.map((b) => {
      const v = validateBatch(b.batch, { version: 2, agencies: ['TAB'], currency: 'AUD', userStates: new Set(['NSW', 'VIC', 'QLD', 'SA', 'WA', 'TAS', 'NT', 'ACT']), now, timezone: 'Australia/Sydney' });
      if (!v.ok) throw new Error('bench batch invalid');
      return copyText(tenantId, b.meetingId, v.bets);
    });
    const copySql = 'COPY bench_copy (tenant_id, source, bet_id, leg, bet_time, bet_type, runner_number, exotics_selection, user_id, user_name, user_state, terminal_id, info_type, medium, resulted, status, bonus, back_indicator, bet_back_id, bet_back_agency, bet_back_amount, bet_back_revenue, bet_back_date, amount, price, payout, net_result, currency, meeting_id, race_number, api_version, client_id, first_received_at, last_received_at, racing_day, deadline_at, late, revision) FROM STDIN';
    let offset = 0;
    for (const c of [1, 4] as const) {
      const slice = copyData.slice(offset, offset + BATCHES[c]);
      offset += BATCHES[c];
      const run = await timed(slice.map((data) => async () => {
        const conn = await pool!.connect();
        try {
          await copyIn(conn, copySql, data);
        } finally {
          conn.release();
        }
      }), c);
      figures[`copy_c${c}`] = run;
      const upload = figures[`upload_c${c}`] as Run;
      figures[`ratio_c${c}`] = round(upload.bets_per_s / run.bets_per_s);
      console.log(`raw COPY, concurrency ${c}: ${run.bets_per_s} rows/s, p50 ${run.p50_ms} ms; upload / COPY = ${figures[`ratio_c${c}`]}`);
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
