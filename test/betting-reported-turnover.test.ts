// Bets taken through /graphql in the turnover report, next to bets the same tenant uploaded: each
// bet counts once (a MULTI and a QUADDIE of several rows too, on their first leg's race), and a
// report of its settlement (as settlement makes it) updates the rows, bumps their revision and
// keeps the version it replaced.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { withTransaction } from '../src/db/pool.ts';
import type { Principal } from '../src/modules/auth/tokens.service.ts';
import type { BetRow, LegRow } from '../src/modules/betting/betting.queries.ts';
import type { PlaceBetInput } from '../src/modules/betting/placement.ts';
import { placedBetReport } from '../src/modules/betting/placed-report.ts';
import type { PlacedBetReport } from '../src/modules/intake/placed-bets.ts';
import { bettingFixture } from './betting-fixture.ts';

const MEETING = 770021;
const MULTI_RACE = 770022;
const TODAY = new Date().toISOString().slice(0, 10);
let f: Awaited<ReturnType<typeof bettingFixture>>;
let uploader: Principal;
const placed: Record<string, string> = {};

async function place(input: Omit<PlaceBetInput, 'idempotencyKey'>): Promise<string> {
  const bet = await f.services.betting.placeBet(f.user(randomUUID()), { idempotencyKey: randomUUID(), ...input });
  assert.equal(bet.status, 'ACCEPTED', input.type);
  return bet.id;
}

const uploaded = (id: string, type: string, leg: number, amount: number) => ({
  id, type, leg, time: new Date().toISOString(), runner_number: 2, user_id: 'cust-1', status: 'Unresulted', amount,
});

before(async () => {
  f = await bettingFixture(MEETING);
  await f.services.catalogue.importCatalog({
    meeting_id: MULTI_RACE, date: TODAY, venue: 'Flemington', jurisdiction: 'VIC', code: 'T',
    pools: [{ product: 'quaddie', races: [1, 2, 3, 4] }],
    races: [1, 2, 3, 4].map((r) => ({ race_number: r, start_time: new Date(Date.now() + r * 3600_000).toISOString(),
      runners: [1, 2, 3, 4].map((n) => ({ number: n, name: `R${n}`, win: 2 + n, place: 1.5 })) })),
  });
  const client = await f.services.tenants.createClient({ tenantId: f.tenantId, scopes: ['upload'], agencies: ['TAB'] });
  uploader = { clientId: client.client_id, tenantId: f.tenantId, scopes: ['upload'] };
  placed.win = await place({ type: 'WIN', stake: 10, legs: [{ meetingId: MEETING, raceNumber: 1, selections: [[1]], price: 3 }] });
  placed.exacta = await place({ type: 'EXACTA', stake: 6, legs: [{ meetingId: MEETING, raceNumber: 1, selections: [[1], [2]] }] });
  placed.multi = await place({ type: 'MULTI', stake: 5, legs: [1, 2].map((r) => ({ meetingId: MULTI_RACE, raceNumber: r, selections: [[3]], price: 5 })) });
  placed.quaddie = await place({ type: 'QUADDIE', stake: 8, legs: [1, 2, 3, 4].map((r) => ({ meetingId: MULTI_RACE, raceNumber: r, selections: [[1, 2]] })) });
  // The operator's own bets: a win of 20 and a multi of 4 over races 1 and 2, uploaded race by race.
  await f.services.intake.upload(uploader, 2, { meeting_id: MULTI_RACE, race_number: 1, bets: [uploaded('U-1', 'win', 1, 20), uploaded('U-2', 'multi', 1, 4)] });
  await f.services.intake.upload(uploader, 2, { meeting_id: MULTI_RACE, race_number: 2, bets: [uploaded('U-2', 'multi', 2, 4)] });
});
after(() => f.close());

const turnover = (groupBy: string) => f.services.reports.turnover(uploader, { from: TODAY, to: TODAY, group_by: groupBy });
/** Each row as [...its keys, bets, void_bets, turnover, payout, net_result]; every row is in the tenant's AUD. */
const figures = (rows: Array<Record<string, unknown>>) => rows.map(({ bets, void_bets, turnover, payout, net_result, bonus_turnover: _b, bet_back_turnover: _bb, currency, ...keys }) => {
  assert.equal(currency, 'AUD');
  return [...Object.values(keys), bets, void_bets, turnover, payout, net_result];
});

test('turnover counts each placed bet once, next to the uploaded ones, on the race of its first leg', async () => {
  const rows = await f.db.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM reported_bets WHERE source = 'WAGERLINE'");
  assert.equal(rows.rows[0]!.n, 1 + 1 + 2 + 4, 'a row per leg');
  assert.deepEqual(figures((await turnover('source')).rows), [
    ['TAB', 2, 0, '24.00', '0.00', '24.00'],
    ['WAGERLINE', 4, 0, '29.00', '0.00', '29.00'],
  ]);
  assert.deepEqual(figures((await turnover('meeting_id,race_number')).rows), [
    [MEETING, 1, 2, 0, '16.00', '0.00', '16.00'],
    [MULTI_RACE, 1, 4, 0, '37.00', '0.00', '37.00'],
  ]);
  assert.deepEqual(figures((await turnover('type')).rows).map((r) => r.slice(0, 3)), [
    ['exacta', 1, 0], ['multi', 2, 0], ['quaddie', 1, 0], ['win', 2, 0],
  ]);
});

async function stored(betId: string): Promise<{ bet: BetRow; legs: LegRow[] }> {
  const bet = (await f.db.pool.query<BetRow>('SELECT * FROM bets WHERE bet_id = $1', [betId])).rows[0]!;
  const legs = (await f.db.pool.query<LegRow>('SELECT * FROM bet_legs WHERE bet_id = $1 ORDER BY leg', [betId])).rows;
  return { bet, legs };
}

/** Reports bets as settlement would: the stored bet, its own status and payout, one transaction. */
async function settle(at: Date, ...outcomes: Array<[string, PlacedBetReport['status'], string]>): Promise<void> {
  const reports: PlacedBetReport[] = [];
  for (const [betId, status, payout] of outcomes) {
    const { bet, legs } = await stored(betId);
    reports.push(placedBetReport(bet, legs, status, payout));
  }
  await withTransaction(f.db.pool, (tx) => f.services.intake.reportPlacedBets(tx, reports, at));
}

test('a settled bet reported again: Paid with its payout, the next revision, the version replaced kept', async () => {
  const at = new Date(Date.now() + 60_000);
  await settle(at, [placed.multi!, 'Paid', '125.00'], [placed.win!, 'Paid', '0.00'], [placed.exacta!, 'FullRefund', '6.00']);
  const { rows } = await f.db.pool.query(
    `SELECT bet_id, leg, status, resulted, trim_scale(payout)::text AS payout, trim_scale(net_result)::text AS net_result, revision,
            first_received_at < last_received_at AS kept_first, last_received_at = $2 AS now
     FROM reported_bets WHERE bet_id = ANY ($1) ORDER BY amount, leg`, [[placed.multi, placed.win, placed.exacta], at]);
  assert.deepEqual(rows.map((r) => Object.values(r)), [
    [placed.multi, 1, 'Paid', true, '125', '-120', 2, true, true],
    [placed.multi, 2, 'Paid', true, '125', '-120', 2, true, true],
    [placed.exacta, 1, 'FullRefund', true, '6', '0', 2, true, true],
    [placed.win, 1, 'Paid', true, '0', '10', 2, true, true],
  ]);
  const old = await f.db.pool.query(
    'SELECT bet_id, leg, status, payout, revision, superseded_at = $2 AS at FROM reported_bet_revisions WHERE bet_id = ANY ($1) ORDER BY amount, leg',
    [[placed.multi, placed.win, placed.exacta], at]);
  assert.deepEqual(old.rows.map((r) => Object.values(r)), [
    [placed.multi, 1, 'Unresulted', null, 1, true],
    [placed.multi, 2, 'Unresulted', null, 1, true],
    [placed.exacta, 1, 'Unresulted', null, 1, true],
    [placed.win, 1, 'Unresulted', null, 1, true],
  ]);
  // The same report again writes nothing: no revision, no version kept.
  await settle(new Date(at.getTime() + 60_000), [placed.multi!, 'Paid', '125.00']);
  const again = await f.db.pool.query('SELECT max(revision) AS r, (SELECT count(*)::int FROM reported_bet_revisions) AS kept FROM reported_bets WHERE bet_id = $1', [placed.multi]);
  assert.deepEqual(again.rows[0], { r: 2, kept: 4 });
});

test('turnover after settlement: the refund is void, payouts count once per bet', async () => {
  assert.deepEqual(figures((await turnover('source')).rows), [
    ['TAB', 2, 0, '24.00', '0.00', '24.00'],
    ['WAGERLINE', 4, 1, '23.00', '125.00', '-102.00'],
  ]);
});
