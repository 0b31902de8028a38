// npm run bench:reports — how long the turnover and late-upload reports take on a sizeable table:
// BENCH_REPORT_ROWS bets per tenant (default 600,000) for 3 operators over 30 racing days (20
// meetings a day, uploaded day after day, 1 bet in 7 a 2-leg multi, 1 in 500 late), generated in SQL; each report runs
// through the reports service (the route's one query) 5 times, the median is printed.
// Uses DATABASE_URL's server (a scratch database is created and dropped) or an embedded
// PostgreSQL in a temporary directory. Last line: one JSON object with the figures.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { startEmbedded, type EmbeddedDatabase } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { createPool } from '../src/db/pool.ts';
import { inReportTransaction, params, turnoverSql } from '../src/modules/reports/reports.queries.ts';
import { benchServices } from './services.ts';
import { freePort } from '../test/helpers/net.ts';

const PER_TENANT = Number(process.env.BENCH_REPORT_ROWS ?? 600_000);
const DAYS = 30;
const STATES = ['NSW', 'VIC', 'QLD', 'SA', 'WA', 'TAS', 'NT', 'ACT'];

async function server(): Promise<{ url: string; stop(): Promise<void> }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: async () => undefined };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wagerline-bench-'));
  chmodSync(dir, 0o755);
  const embedded: EmbeddedDatabase = await startEmbedded(dir, await freePort());
  return { url: embedded.url, stop: async () => { await embedded.stop(); rmSync(dir, { recursive: true, force: true }); } };
}

// One tenant's bets, set-based, in day order as uploads arrive: bet g is on day g * 30 / N,
// meeting (day, g % 20), race 1 + g % 10.
const FILL = `
INSERT INTO reported_bets (tenant_id, source, bet_id, leg, meeting_id, race_number, bet_time, bet_type, runner_number,
  user_id, user_state, info_type, medium, resulted, status, bonus, back_indicator, bet_back_amount, amount, price, payout,
  net_result, currency, api_version, client_id, first_received_at, last_received_at, racing_day, deadline_at, late, revision)
SELECT $1, 'TAB', 'b' || g, leg, 1000 + day.n * 20 + g % 20, 1 + g % 10 + leg - 1,
  d::timestamptz, CASE WHEN g % 7 = 0 THEN 'multi' WHEN g % 3 = 0 THEN 'place' ELSE 'win' END, 1 + g % 12,
  'u' || (g % 50000), ($3::text[])[1 + g % 8], 'fixed', CASE WHEN g % 2 = 0 THEN 'internet' ELSE 'app' END, true,
  ('{Paid,Paid,Paid,Unresulted,Cancelled,FullRefund,PartialRefund,Pending}'::text[])[1 + g % 8], g % 20 = 0, false,
  NULL, 1 + (g % 200) + 0.5, 2.5, CASE WHEN g % 4 = 0 THEN (1 + (g % 200)) * 2.5 ELSE 0 END, 0, 'AUD', 2, $2,
  d + interval '1 day', d + interval '1 day' + CASE WHEN g % 500 = 0 THEN interval '3 days' ELSE interval '0' END,
  d::date, d + interval '2 days', g % 500 = 0, 1
FROM generate_series(1, $4::int) g
CROSS JOIN LATERAL (SELECT (g::bigint * ${DAYS} / ($4::int + 1))::int AS n) day
CROSS JOIN LATERAL (SELECT date '2024-05-01' + day.n AS d) dd
CROSS JOIN LATERAL generate_series(1, CASE WHEN g % 7 = 0 THEN 2 ELSE 1 END) leg`;

async function median(fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return Math.round(times[2]! * 10) / 10;
}

async function main(): Promise<void> {
  const pgServer = await server();
  const name = `wl_bench_reports_${process.pid}`;
  const admin = new pg.Client({ connectionString: pgServer.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(pgServer.url);
  url.pathname = `/${name}`;
  const pool = createPool(url.toString(), 4);
  try {
    await migrate(url.toString());
    const { tenants, reports } = benchServices(pool, url.toString());
    const operators = [];
    for (let i = 0; i < 3; i++) {
      const tenant = await tenants.createTenant({ name: `Operator ${i}` });
      operators.push(await tenants.createClient({ tenantId: tenant.tenant_id, scopes: ['upload'], agencies: ['TAB'] }));
    }
    const authorityTenant = await tenants.createTenant({ name: 'Authority' });
    const authority = await tenants.createClient({ tenantId: authorityTenant.tenant_id, scopes: ['report'], jurisdictions: ['VIC'] });
    await pool.query(`INSERT INTO meetings (meeting_id, meeting_date, venue, jurisdiction, code)
      SELECT 1000 + d * 20 + k, date '2024-05-01' + d, 'Venue ' || k, ($1::text[])[1 + k % 8], 'T'
      FROM generate_series(0, ${DAYS - 1}) d, generate_series(0, 19) k`, [STATES]);
    const t0 = performance.now();
    for (const op of operators) await pool.query(FILL, [op.tenant_id, op.client_id, STATES, PER_TENANT]);
    await pool.query('ANALYZE');
    const { rows: [{ count }] } = await pool.query<{ count: string }>('SELECT count(*) FROM reported_bets');
    process.stderr.write(`filled ${count} rows in ${Math.round(performance.now() - t0)} ms\n`);

    const op = { clientId: operators[0]!.client_id, tenantId: operators[0]!.tenant_id, scopes: ['upload'] };
    const auth = { clientId: authority.client_id, tenantId: authorityTenant.tenant_id, scopes: ['report'] };
    const day = { from: '2024-05-10', to: '2024-05-10' };
    const month = { from: '2024-05-01', to: '2024-05-30' };
    const figures: Record<string, number> = {
      operator_day_total_ms: await median(() => reports.turnover(op, day)),
      operator_day_by_race_ms: await median(() => reports.turnover(op, { ...day, group_by: 'meeting_id,race_number' })),
      operator_month_by_date_type_ms: await median(() => reports.turnover(op, { ...month, group_by: 'date,type' })),
      operator_month_one_meeting_ms: await median(() => reports.turnover(op, { ...month, meeting_id: '1185' })),
      authority_day_by_tenant_meeting_ms: await median(() => reports.turnover(auth, { ...day, group_by: 'tenant_id,meeting_id' })),
      authority_month_total_ms: await median(() => reports.turnover(auth, month)),
      operator_month_late_ms: await median(() => reports.lateUploads(op, month)),
      authority_month_late_ms: await median(() => reports.lateUploads(auth, month)),
    };
    if (process.env.BENCH_EXPLAIN) {
      // BENCH_EXPLAIN=1: the plans of the month-long reports, on stderr.
      for (const [viewer, keys, range] of [[{ kind: 'tenant', tenantId: op.tenantId }, ['date', 'type'], month], [{ kind: 'authority', jurisdictions: authority.jurisdictions }, [], month], [{ kind: 'authority', jurisdictions: authority.jurisdictions }, ['tenant_id', 'meeting_id'], day]] as const) {
        const { rows } = await inReportTransaction(pool, 600_000, (tx) => tx.query(`EXPLAIN (ANALYZE, BUFFERS) ${turnoverSql(viewer, [...keys])}`, params(viewer, { ...range, meetingId: null })));
        process.stderr.write(`${rows.map((r) => r['QUERY PLAN']).join('\n')}\n\n`);
      }
    }
    for (const [k, v] of Object.entries(figures)) process.stderr.write(`${k.padEnd(40)} ${v} ms\n`);
    process.stdout.write(`${JSON.stringify({ rows: Number(count), rows_per_tenant_day: Math.round(Number(count) / 3 / DAYS), ...figures })}\n`);
  } finally {
    await pool.end();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
    await pgServer.stop();
  }
}

await main();
