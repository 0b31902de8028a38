// The upload deadline (spec 8) with the test app's clock: 24 h after the last known race start of
// the racing day's meetings, else 24 h after the end of that local day (tenant time zone).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { seedClient, sydneyUploadApp, uploadAt as uploadRaceAt, type TestContext } from '../../../test/helpers/app.ts';
import { buildBet } from '../../../test/factories/bet-factory.ts';
import { parseMeetingsFile } from '../catalogue/catalogue-file.ts';

let ctx: TestContext;
let client: Awaited<ReturnType<typeof seedClient>>;
before(async () => {
  ({ ctx, client } = await sydneyUploadApp());
  const file = 'meetings.json';
  await ctx.services.catalogue.importMeetings(parseMeetingsFile(file, readFileSync(new URL(`../../../examples/${file}`, import.meta.url), 'utf8')));
});
after(() => ctx.close());

/** Uploads race 7 at the given local time with a fresh token (the clock jumps by days). */
const uploadAt = (at: string, meetingId: number, bets: Record<string, unknown>[], as = client) =>
  uploadRaceAt(ctx, as, at, { meetingId, raceNumber: 7 }, bets);

async function stored(id: string) {
  const { rows } = await ctx.db.pool.query(
    `SELECT racing_day::text, deadline_at, late, last_received_at, first_received_at FROM reported_bets WHERE bet_id = $1`, [id]);
  return rows[0];
}

test('a known meeting: racing day is its date; the deadline is 24 h after the day\'s last known race', async () => {
  // examples/meetings.json: the last race start registered for 2024-05-01 is 16:25 at Randwick.
  const ok = await uploadAt('2024-05-02T16:24:59+10:00', 1234567, [buildBet({ id: 'in-time' })]);
  assert.equal(ok.statusCode, 200, ok.body);
  assert.deepEqual(ok.json().warnings, []);
  const a = await stored('in-time');
  assert.equal(a.racing_day, '2024-05-01');
  assert.equal(a.deadline_at.toISOString(), new Date('2024-05-02T16:25:00+10:00').toISOString());
  assert.equal(a.late, false);

  const late = await uploadAt('2024-05-02T16:25:01+10:00', 1234567, [buildBet({ id: 'too-late' })]);
  assert.equal(late.statusCode, 200);
  const warning = late.json().warnings.find((w: { code: string }) => w.code === 'late_upload');
  assert.match(warning.message, /deadline 2024-05-02T06:25:00.000Z of racing day 2024-05-01/);
  assert.equal(warning.count, 1);
  const b = await stored('too-late');
  assert.equal(b.late, true);
  assert.equal(b.last_received_at.toISOString(), new Date('2024-05-02T16:25:01+10:00').toISOString());
});

test('the meeting date decides the racing day even for a bet placed days before', async () => {
  const res = await uploadAt('2024-05-02T10:00:00+10:00', 1234567, [buildBet({ id: 'early-bird', time: '2024-04-28T09:00:00+10:00' })]);
  assert.equal(res.statusCode, 200);
  assert.equal((await stored('early-bird')).racing_day, '2024-05-01');
});

test('an unknown meeting: racing day is the local date of the bet; deadline the end of that day + 24 h', async () => {
  // 23:30 UTC on 1 May is 09:30 on 2 May in Sydney: racing day 2 May, no known races that day.
  const bet = (id: string) => buildBet({ id, time: '2024-05-01T23:30:00Z' });
  const ok = await uploadAt('2024-05-03T23:59:00+10:00', 99001, [bet('u-ok')]);
  assert.equal(ok.statusCode, 200);
  const a = await stored('u-ok');
  assert.deepEqual([a.racing_day, a.late, a.deadline_at.toISOString()], ['2024-05-02', false, new Date('2024-05-04T00:00:00+10:00').toISOString()]);
  await uploadAt('2024-05-04T00:00:01+10:00', 99001, [bet('u-late')]);
  assert.equal((await stored('u-late')).late, true);
});

test('a late batch spanning two racing days: one late_upload warning per day, counting its bets', async () => {
  const bets = [['d2-a', '2024-05-01T23:30:00Z'], ['d2-b', '2024-05-01T23:40:00Z'], ['d3-a', '2024-05-02T23:30:00Z']]
    .map(([id, time]) => buildBet({ id, time }));
  const res = await uploadAt('2024-05-06T10:00:00+10:00', 99003, bets);
  assert.equal(res.statusCode, 200, res.body);
  const late = res.json().warnings.filter((w: { code: string }) => w.code === 'late_upload');
  assert.deepEqual(late.map((w: { count: number; message: string }) => [w.count, /racing day (\S+)/.exec(w.message)![1]]), [
    [2, '2024-05-02'], [1, '2024-05-03'],
  ]);
});

test('the local date follows the tenant time zone', async () => {
  ctx.clock.set(new Date('2024-05-01T12:00:00+10:00'));
  const perth = await seedClient(ctx, { agencies: ['TAB'], timezone: 'Australia/Perth' });
  // 17:30 UTC on 1 May is 01:30 on 2 May in Perth (UTC+8), so the racing day is 2 May.
  const res = await uploadAt('2024-05-02T12:00:00+08:00', 99002, [buildBet({ id: 'perth', time: '2024-05-01T17:30:00Z' })], perth);
  assert.equal(res.statusCode, 200);
  const p = await stored('perth');
  assert.deepEqual([p.racing_day, p.deadline_at.toISOString()], ['2024-05-02', new Date('2024-05-04T00:00:00+08:00').toISOString()]);
});

test('a late identical re-upload changes nothing; a late change is flagged and keeps the first receipt time', async () => {
  const original = buildBet({ id: 'in-time' });
  const same = await uploadAt('2024-05-05T09:00:00+10:00', 1234567, [original]);
  assert.equal(same.json().unchanged, 1);
  assert.deepEqual(same.json().warnings, [], 'nothing was stored late, so no late_upload warning');
  assert.equal((await stored('in-time')).late, false);
  const changed = await uploadAt('2024-05-05T09:00:00+10:00', 1234567, [{ ...original, status: 'Cancelled', payout: 0, net_result: 0 }]);
  assert.equal(changed.json().updated, 1);
  const s = await stored('in-time');
  assert.equal(s.late, true);
  assert.equal(s.first_received_at.toISOString(), new Date('2024-05-02T16:24:59+10:00').toISOString());
  const { rows } = await ctx.db.pool.query("SELECT late FROM reported_bet_revisions WHERE bet_id = 'in-time'");
  assert.deepEqual(rows, [{ late: false }]);
});
