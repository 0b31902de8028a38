// Stored bets follow the catalogue: a meeting registered or re-dated after its bets were uploaded
// moves them to its racing day, and the deadlines (and lateness) of the days touched follow the
// day's race starts as they now stand (docs/reports.md, "Parameters").
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { seedClient, sydneyUploadApp, uploadAt as uploadRaceAt, type TestContext } from '../../../test/helpers/app.ts';
import { buildBet } from '../../../test/factories/bet-factory.ts';

let ctx: TestContext;
let client: Awaited<ReturnType<typeof seedClient>>;
before(async () => {
  ({ ctx, client } = await sydneyUploadApp());
});
after(() => ctx.close());

async function authorization() {
  const { access_token } = await ctx.tokens.grant(client.client.client_id, client.client.client_secret);
  return `Bearer ${access_token}`;
}

async function uploadAt(at: string, meetingId: number, bets: Record<string, unknown>[]) {
  const res = await uploadRaceAt(ctx, client, at, { meetingId, raceNumber: 1 }, bets);
  assert.equal(res.statusCode, 200, res.body);
}

const stored = async (id: string) => (await ctx.db.pool.query<{ racing_day: string; deadline_at: Date; late: boolean }>(
  'SELECT racing_day::text, deadline_at, late FROM reported_bets WHERE bet_id = $1', [id])).rows[0]!;

async function turnover(day: string): Promise<string[]> {
  const res = await ctx.app.inject({ url: `/reports/turnover?from=${day}&to=${day}&group_by=meeting_id`, headers: { authorization: await authorization() } });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json().rows as Array<{ meeting_id: number; turnover: string }>).map((r) => `${r.meeting_id} ${r.turnover}`);
}

const meeting = (date: string, start: string) => [{ meeting_id: 500, date, venue: 'Rosehill', jurisdiction: 'NSW', code: 'T' as const, races: [{ race_number: 1, start_time: start }] }];

test('a meeting registered after its bets moves them to its date, with that day\'s deadline', async () => {
  // Unknown meeting: the bet's local date, 2024-05-01, deadline 24 h after that day's end.
  await uploadAt('2024-05-01T21:00:00+10:00', 500, [buildBet({ id: 'evening', time: '2024-05-01T20:00:00+10:00', amount: 10 })]);
  assert.deepEqual([(await stored('evening')).racing_day, (await stored('evening')).deadline_at.toISOString()], ['2024-05-01', '2024-05-02T14:00:00.000Z']);

  await ctx.services.catalogue.importMeetings(meeting('2024-05-02', '2024-05-02T19:00:00+10:00'));
  const moved = await stored('evening');
  assert.deepEqual([moved.racing_day, moved.deadline_at.toISOString(), moved.late], ['2024-05-02', '2024-05-03T09:00:00.000Z', false]);
  assert.deepEqual(await turnover('2024-05-01'), []);
  assert.deepEqual(await turnover('2024-05-02'), ['500 10.00']);
});

test('a meeting re-dated (or its last race moved) moves its bets and their lateness with it', async () => {
  await uploadAt('2024-05-03T10:00:00+10:00', 500, [buildBet({ id: 'next-morning', time: '2024-05-02T18:00:00+10:00', amount: 5 })]);
  assert.equal((await stored('next-morning')).late, false, 'before 2024-05-03 19:00');
  // The meeting was in fact on 2024-05-01, its last race at 12:00: the deadline was 2024-05-02 12:00.
  await ctx.services.catalogue.importCatalog({ meeting_id: 500, date: '2024-05-01', venue: 'Rosehill', jurisdiction: 'NSW', code: 'T',
    races: [{ race_number: 1, start_time: '2024-05-01T12:00:00+10:00', runners: [] }] });
  for (const id of ['evening', 'next-morning']) {
    const row = await stored(id);
    assert.deepEqual([row.racing_day, row.deadline_at.toISOString()], ['2024-05-01', '2024-05-02T02:00:00.000Z'], id);
  }
  assert.equal((await stored('evening')).late, false, 'received 2024-05-01 21:00, before the deadline');
  assert.equal((await stored('next-morning')).late, true, 'received 2024-05-03 10:00, after it');
  assert.deepEqual(await turnover('2024-05-01'), ['500 15.00']);
  assert.deepEqual(await turnover('2024-05-02'), []);
});

test('a meeting re-dated away from a racing day gives that day\'s other bets the day\'s new deadline, even when it had no bets itself', async () => {
  await ctx.services.catalogue.importMeetings([
    { meeting_id: 601, date: '2024-06-01', venue: 'Rosehill', jurisdiction: 'NSW', code: 'T', races: [{ race_number: 1, start_time: '2024-06-01T20:00:00+10:00' }] },
    { meeting_id: 602, date: '2024-06-01', venue: 'Albion Park', jurisdiction: 'QLD', code: 'H', races: [{ race_number: 1, start_time: '2024-06-01T23:00:00+10:00' }] },
  ]);
  // The day's last race is 602's at 23:00, so the deadline is 2024-06-02 23:00: received at 21:00, on time.
  await uploadAt('2024-06-02T21:00:00+10:00', 601, [buildBet({ id: 'on-601', time: '2024-06-01T19:00:00+10:00', amount: 8 })]);
  assert.equal((await stored('on-601')).late, false);
  // 602 was in fact run the next day: 2024-06-01 ended with 601's race at 20:00, its deadline 2024-06-02 20:00.
  await ctx.services.catalogue.importMeetings([{ meeting_id: 602, date: '2024-06-02', venue: 'Albion Park', jurisdiction: 'QLD', code: 'H',
    races: [{ race_number: 1, start_time: '2024-06-02T23:00:00+10:00' }] }]);
  const row = await stored('on-601');
  assert.deepEqual([row.deadline_at.toISOString(), row.late], ['2024-06-02T10:00:00.000Z', true]);
  const res = await ctx.app.inject({ url: '/reports/late-uploads?from=2024-06-01&to=2024-06-01', headers: { authorization: await authorization() } });
  assert.deepEqual((res.json().rows as Array<Record<string, unknown>>).map((r) => [r.meeting_id, r.bets, r.max_delay_seconds]), [[601, 1, 3600]]);
});
