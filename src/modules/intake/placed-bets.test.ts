// The writer of placed bets on its own: any number of bets in one statement inside the caller's
// transaction, the tenant's currency and racing day, refusals of a caller's mistakes, and an
// uploaded bet that can never take a placed bet's key.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createSecretBox } from '../../crypto/secret-box.ts';
import type { Queryable } from '../../db/pool.ts';
import { testServices } from '../../../test/helpers/app.ts';
import { freshDatabase, type TestDatabase } from '../../../test/helpers/db.ts';
import type { Services } from '../../services.ts';
import type { PlacedBetReport } from './placed-bets.ts';

const MEETING = 880001;
let db: TestDatabase;
let services: Services;
let aud: string;
let nzd: string;

before(async () => {
  db = await freshDatabase();
  services = testServices(db, createSecretBox(randomBytes(32)));
  aud = (await services.tenants.createTenant({ name: 'A' })).tenant_id;
  nzd = (await services.tenants.createTenant({ name: 'N', currency: 'NZD', timezone: 'Pacific/Auckland' })).tenant_id;
  await services.catalogue.importCatalog({ meeting_id: MEETING, date: '2024-05-01', venue: 'Ellerslie', jurisdiction: 'VIC', code: 'T',
    races: [1, 2, 3, 4].map((r) => ({ race_number: r, start_time: `2024-05-01T0${r}:00:00Z`, runners: [{ number: 1, name: 'One' }] })) });
});
after(async () => {
  await services.close();
  await db.drop();
});

/** The i-th of a mix of bets: a WIN, a 3-leg MULTI, a QUADDIE, an EXACTA; every other one NZD. */
function report(i: number, overrides: Partial<PlacedBetReport> = {}): PlacedBetReport {
  const kind = ['WIN', 'MULTI', 'QUADDIE', 'EXACTA'][i % 4]!;
  const legs = kind === 'MULTI' ? 3 : kind === 'QUADDIE' ? 4 : 1;
  const runner = kind === 'WIN' || kind === 'MULTI';
  return {
    tenantId: i % 2 ? nzd : aud, betId: randomUUID(), userId: randomUUID(), kind, placedAt: new Date('2024-05-01T00:30:00Z'),
    medium: 'app', bonus: false, status: 'Unresulted', resulted: false, amount: '2.50', payout: null,
    legs: Array.from({ length: legs }, (_, l) => ({
      leg: l + 1, meetingId: String(MEETING), raceNumber: l + 1, runnerNumber: runner ? 1 : null,
      exoticsSelection: runner ? null : kind === 'QUADDIE' ? '1/1/1/1' : '1/2', price: runner ? '2.5' : null,
    })),
    ...overrides,
  };
}

/** Runs fn in a transaction on a connection that counts the statements fn sends. */
async function counted(fn: (tx: Queryable) => Promise<void>): Promise<number> {
  const client = await db.pool.connect();
  let statements = 0;
  const tx = { query: (...args: unknown[]) => (statements++, (client.query as (...a: unknown[]) => unknown)(...args)) } as unknown as Queryable;
  try {
    await client.query('BEGIN');
    await fn(tx);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
  return statements;
}

test('2,000 bets are written in one statement, and settled in one more', async () => {
  const reports = Array.from({ length: 2000 }, (_, i) => report(i));
  const legs = reports.reduce((n, r) => n + r.legs.length, 0);
  assert.equal(await counted((tx) => services.intake.reportPlacedBets(tx, reports, new Date('2024-05-01T00:31:00Z'))), 1);
  const paid = reports.map((r) => ({ ...r, status: 'Paid' as const, resulted: true, payout: '6.25' }));
  assert.equal(await counted((tx) => services.intake.reportPlacedBets(tx, paid, new Date('2024-05-01T06:00:00Z'))), 1);
  const { rows } = await db.pool.query(
    `SELECT count(*)::int AS rows, count(DISTINCT bet_id)::int AS bets, min(revision) AS min, max(revision) AS max,
            (SELECT count(*)::int FROM reported_bet_revisions) AS kept, sum(net_result)::text AS net
     FROM reported_bets WHERE source = 'WAGERLINE'`);
  assert.deepEqual(rows[0], { rows: legs, bets: 2000, min: 2, max: 2, kept: legs, net: String(-3.75 * legs) + '.000000' });
});

test('currency and racing day come from the tenant and the catalogue; a meeting it lacks gives the local date', async () => {
  const known = report(1);
  const unknown = report(0, { tenantId: nzd, placedAt: new Date('2024-05-01T13:00:00Z') });
  unknown.legs[0]!.meetingId = '990099';
  await counted((tx) => services.intake.reportPlacedBets(tx, [known, unknown], new Date()));
  const { rows } = await db.pool.query(
    'SELECT bet_id, leg, currency, racing_day::text AS day, late, api_version, client_id FROM reported_bets WHERE bet_id = ANY ($1) ORDER BY bet_id = $2, leg',
    [[known.betId, unknown.betId], unknown.betId]);
  assert.deepEqual(rows.map((r) => [r.leg, r.currency, r.day, r.late, r.api_version, r.client_id]), [
    [1, 'NZD', '2024-05-01', false, 3, 'wagerline'],
    [2, 'NZD', '2024-05-01', false, 3, 'wagerline'],
    [3, 'NZD', '2024-05-01', false, 3, 'wagerline'],
    [1, 'NZD', '2024-05-02', false, 3, 'wagerline'], // 13:00Z is 1 am on the 2nd in Auckland
  ]);
});

test('a caller\'s mistake is refused and nothing of its batch is stored', async () => {
  const cases: Array<[PlacedBetReport[], RegExp]> = [
    [[report(0), report(4, { tenantId: randomUUID() })], /tenant that does not exist/],
    [[report(0, { kind: 'SWEEP' })], /kind SWEEP/],
    (() => { const r = report(0); return [[r, r], /reported twice/] as [PlacedBetReport[], RegExp]; })(),
    [[report(0, { legs: [] })], /no legs/],
  ];
  for (const [reports, message] of cases) {
    await assert.rejects(counted((tx) => services.intake.reportPlacedBets(tx, reports, new Date())), message);
    const { rows } = await db.pool.query('SELECT 1 FROM reported_bets WHERE bet_id = ANY ($1)', [reports.map((r) => r.betId)]);
    assert.equal(rows.length, 0, String(message));
  }
});

test('an upload can never take the key of a placed bet: WAGERLINE is no client\'s agency, and only placed rows hold it', async () => {
  await assert.rejects(services.tenants.createClient({ tenantId: aud, scopes: ['upload'], agencies: ['TAB', 'wagerline'] }), /reserved/);
  const client = await services.tenants.createClient({ tenantId: aud, scopes: ['upload'], agencies: ['TAB'] });
  await assert.rejects(db.pool.query("UPDATE operator_clients SET agencies = '{TAB,WAGERLINE}' WHERE client_id = $1", [client.client_id]),
    /operator_clients_agencies_not_wagerline/);
  // Even written by hand, a row of source WAGERLINE must be a placed one (api_version 3), and no other may be.
  const placed = report(0, { tenantId: aud });
  await counted((tx) => services.intake.reportPlacedBets(tx, [placed], new Date()));
  await assert.rejects(db.pool.query("UPDATE reported_bets SET api_version = 2 WHERE bet_id = $1", [placed.betId]), /reported_bets_api_version_check/);
  await assert.rejects(db.pool.query("UPDATE reported_bets SET source = 'TAB' WHERE bet_id = $1", [placed.betId]), /reported_bets_api_version_check/);
});
