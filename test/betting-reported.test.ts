// Bets taken through /graphql are in the reporting store like uploaded ones: the upload's field
// names, types, statuses and selection text under the source WAGERLINE, one row per leg, read back
// per race beside the uploads, counted once in turnover; a refused bet is not there; a report of
// the settled bet updates its rows and keeps the version it replaces.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { Principal } from '../src/modules/auth/tokens.service.ts';
import type { PlaceBetInput } from '../src/modules/betting/placement.ts';
import type { BetRow, LegRow } from '../src/modules/betting/betting.queries.ts';
import { checkSelection, parseSelection, type BetType } from '../src/racing/selection.ts';
import { bettingFixture } from './betting-fixture.ts';

const MEETING = 770011;
/** Four races offering every product, with a quaddie over 1-4 and a daily double over 3-4. */
const MULTI_RACE = 770012;
let f: Awaited<ReturnType<typeof bettingFixture>>;
let uploader: Principal;

before(async () => {
  f = await bettingFixture(MEETING);
  await f.services.catalogue.importCatalog({
    meeting_id: MULTI_RACE, date: new Date().toISOString().slice(0, 10), venue: 'Flemington', jurisdiction: 'VIC', code: 'T',
    pools: [{ product: 'quaddie', races: [1, 2, 3, 4] }, { product: 'dailydouble', races: [3, 4] }],
    races: [1, 2, 3, 4].map((r) => ({ race_number: r, start_time: new Date(Date.now() + r * 3600_000).toISOString(),
      products: ['win', 'place', 'exacta', 'trifecta'], runners: [1, 2, 3, 4, 5].map((n) => ({ number: n, name: `R${n}`, win: 2 + n, place: 1.5 })) })),
  });
  const client = await f.services.tenants.createClient({ tenantId: f.tenantId, scopes: ['upload'], agencies: ['TAB'] });
  uploader = { clientId: client.client_id, tenantId: f.tenantId, scopes: ['upload'] };
});
after(() => f.close());

async function place(input: Omit<PlaceBetInput, 'idempotencyKey'>) {
  return f.services.betting.placeBet(f.user(randomUUID()), { idempotencyKey: randomUUID(), ...input });
}

/** The rows of a bet as GET /public/bets gives them, read per race as an operator reads uploads. */
async function rowsOf(betId: string, races: Array<[number, number]>) {
  const rows = [];
  for (const [meeting, race] of races) {
    const page = await f.services.intake.listBets(uploader, { meeting_id: meeting, race_number: race });
    rows.push(...page.bets.filter((b) => b.id === betId));
  }
  return rows;
}

async function stored(betId: string): Promise<{ bet: BetRow; legs: LegRow[] }> {
  const bet = (await f.db.pool.query<BetRow>('SELECT * FROM bets WHERE bet_id = $1', [betId])).rows[0]!;
  const legs = (await f.db.pool.query<LegRow>('SELECT * FROM bet_legs WHERE bet_id = $1 ORDER BY leg', [betId])).rows;
  return { bet, legs };
}

test('a WIN taken is one row in the upload\'s terms: source WAGERLINE, Unresulted, no payout, never late', async () => {
  const bet = await place({ type: 'WIN', stake: 10, legs: [{ meetingId: MEETING, raceNumber: 1, selections: [[2]], price: 4 }] });
  assert.equal(bet.status, 'ACCEPTED');
  const [row, ...more] = await rowsOf(bet.id, [[MEETING, 1]]);
  assert.equal(more.length, 0);
  const { rows: [deadline] } = await f.db.pool.query<{ at: Date; day: string }>(
    "SELECT catalogue_upload_deadline(meeting_date, 'Australia/Sydney') AS at, meeting_date::text AS day FROM meetings WHERE meeting_id = $1", [MEETING]);
  assert.deepEqual({ ...row, time: (row!.time as Date).toISOString() }, {
    source: 'WAGERLINE', id: bet.id, leg: 1, time: bet.createdAt, type: 'win', runner_number: 2, exotics_selection: null,
    user_id: (await stored(bet.id)).bet.user_id, user_name: null, user_state: null, terminal_id: null, info_type: null,
    medium: 'internet', resulted: false, status: 'Unresulted', bonus: false, back_indicator: false, bet_back_id: null,
    bet_back_agency: null, bet_back_date: null, currency: 'AUD', bet_back_amount: null, bet_back_revenue: null, amount: '10',
    price: '4', payout: null, net_result: null, meeting_id: MEETING, race_number: 1, client_id: 'wagerline', api_version: 3,
    first_received_at: row!.first_received_at, last_received_at: row!.first_received_at, racing_day: deadline!.day,
    deadline_at: deadline!.at, late: false, revision: 1,
  });
});

test('exotics carry the upload\'s canonical selection: positions by "/", a box as "(BOXED)"', async () => {
  const cases: Array<[Omit<PlaceBetInput, 'idempotencyKey'>, BetType, string]> = [
    [{ type: 'EXACTA', stake: 6, legs: [{ meetingId: MEETING, raceNumber: 1, selections: [[1], [2, 3]] }] }, 'exacta', '1/2,3'],
    [{ type: 'TRIFECTA', stake: 6, boxed: true, legs: [{ meetingId: MULTI_RACE, raceNumber: 1, selections: [[3, 1, 2]] }] }, 'trifecta', '3,1,2(BOXED)'],
  ];
  for (const [input, type, selection] of cases) {
    const bet = await place(input);
    assert.equal(bet.status, 'ACCEPTED', input.type);
    const rows = await rowsOf(bet.id, [[input.legs[0]!.meetingId, 1]]);
    assert.deepEqual(rows.map((r) => [r.type, r.leg, r.runner_number, r.exotics_selection, r.price, r.amount]), [[type, 1, null, selection, null, '6']]);
    const parsed = parseSelection(selection);
    assert.ok(typeof parsed !== 'string' && parsed.canonical === selection && checkSelection(type, parsed) === undefined, 'the upload takes it as is');
  }
});

test('a MULTI is one row per leg, each with its meeting, race, runner and price; the stake and status repeat', async () => {
  const bet = await place({ type: 'MULTI', stake: 5, legs: [
    { meetingId: MULTI_RACE, raceNumber: 1, selections: [[1]], price: 3 },
    { meetingId: MULTI_RACE, raceNumber: 2, selections: [[4]], price: 6 },
  ] });
  assert.equal(bet.status, 'ACCEPTED');
  const rows = await rowsOf(bet.id, [[MULTI_RACE, 1], [MULTI_RACE, 2], [MULTI_RACE, 3]]);
  assert.deepEqual(rows.map((r) => [r.type, r.leg, r.meeting_id, r.race_number, r.runner_number, r.exotics_selection, r.price, r.amount, r.status]), [
    ['multi', 1, MULTI_RACE, 1, 1, null, '3', '5', 'Unresulted'],
    ['multi', 2, MULTI_RACE, 2, 4, null, '6', '5', 'Unresulted'],
  ]);
});

test('a QUADDIE is one row per leg, each in its race, with the whole selection as the upload writes it', async () => {
  const bet = await place({ type: 'QUADDIE', stake: 8, legs: [[[1, 2]], [[3]], [[1]], [[2, 4]]].map((selections, i) => ({ meetingId: MULTI_RACE, raceNumber: i + 1, selections })) });
  assert.equal(bet.status, 'ACCEPTED');
  const rows = await rowsOf(bet.id, [[MULTI_RACE, 1], [MULTI_RACE, 2], [MULTI_RACE, 3], [MULTI_RACE, 4]]);
  assert.deepEqual(rows.map((r) => [r.type, r.leg, r.race_number, r.runner_number, r.exotics_selection]), [1, 2, 3, 4].map((leg) => ['quaddie', leg, leg, null, '1,2/3/1/2,4']));
  const parsed = parseSelection('1,2/3/1/2,4');
  assert.ok(typeof parsed !== 'string' && checkSelection('quaddie', parsed) === undefined);
});

test('a refused bet is never reported, whether the wallet or the limits refused it', async () => {
  const win = (stake: number) => place({ type: 'WIN', stake, legs: [{ meetingId: MEETING, raceNumber: 1, selections: [[1]], price: 3 }] });
  const byWallet = await win(5000); // the sandbox's users hold 1,000
  await f.services.betting.setLimits(f.tenantId, { maxRunnerLiability: '0.01' });
  const byLimits = await win(10).finally(() => f.services.betting.setLimits(f.tenantId, { maxRunnerLiability: null }));
  assert.deepEqual([byWallet.status, byWallet.reasonCode, byLimits.status, byLimits.reasonCode],
    ['REJECTED', 'wallet_refused', 'REJECTED', 'max_runner_liability']);
  const { rows } = await f.db.pool.query('SELECT 1 FROM reported_bet_history WHERE bet_id = ANY ($1)', [[byWallet.id, byLimits.id]]);
  assert.equal(rows.length, 0);
});

test('a partly accepted bet is reported with the stake taken', async () => {
  await f.services.betting.setLimits(f.tenantId, { maxStake: '7' });
  const partly = await place({ type: 'WIN', stake: 20, legs: [{ meetingId: MEETING, raceNumber: 1, selections: [[1]], price: 3 }] })
    .finally(() => f.services.betting.setLimits(f.tenantId, { maxStake: null }));
  assert.equal(partly.status, 'PARTIALLY_ACCEPTED');
  assert.deepEqual((await rowsOf(partly.id, [[MEETING, 1]])).map((r) => [r.amount, r.status]), [['7', 'Unresulted']]);
});
