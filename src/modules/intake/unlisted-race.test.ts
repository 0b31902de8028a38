// An upload for a race the meeting's catalogue does not list is stored, with a warning that says so
// (read in the same statement as the upload's context: no extra round trip).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { createTestApp, seedClient, type TestContext } from '../../../test/helpers/app.ts';
import { buildBet } from '../../../test/factories/bet-factory.ts';
import { parseMeetingsFile } from '../catalogue/catalogue-file.ts';

let ctx: TestContext;
let token: string;
before(async () => {
  ctx = await createTestApp({ WAGERLINE_TOKEN_TTL_SECONDS: '86400' });
  ctx.clock.set(new Date('2024-05-02T10:00:00+10:00')); // after the bets (13:45 on 2024-05-01), before the deadline
  const client = await seedClient(ctx, { agencies: ['TAB'], timezone: 'Australia/Sydney' });
  // examples/meetings.json: meeting 1234567 lists races 1, 7 and 8; meeting 1234568 lists none.
  const file = 'meetings.json';
  await ctx.services.catalogue.importMeetings(parseMeetingsFile(file, readFileSync(new URL(`../../../examples/${file}`, import.meta.url), 'utf8')));
  token = (await ctx.tokens.grant(client.client.client_id, client.client.client_secret)).access_token;
});
after(() => ctx.close());

async function upload(meetingId: number | string, raceNumber: number, ids: string[], over: Record<string, unknown> = {}) {
  const res = await ctx.app.inject({
    method: 'POST', url: '/public/uploadRaceV2',
    payload: JSON.stringify({ meeting_id: meetingId, race_number: raceNumber, bets: ids.map((id) => buildBet({ id, ...over })) }),
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as { created: number; warnings: Array<{ code: string; field: string; count: number; message: string }> };
}

test('a race the meeting\'s catalogue does not list: stored, with an unlisted_race warning naming the listed races', async () => {
  const res = await upload('1234567', 6, ['r6-a', 'r6-b']);
  assert.equal(res.created, 2);
  assert.deepEqual(res.warnings, [{
    code: 'unlisted_race', field: 'race_number', count: 2,
    message: 'the catalogue lists races 1, 7, 8 of meeting 1234567, not race 6; stored all the same (register the race with meeting import or catalog import, or check race_number)',
  }]);
  const { rows } = await ctx.db.pool.query("SELECT count(*)::int AS n FROM reported_bets WHERE meeting_id = 1234567 AND race_number = 6");
  assert.equal(rows[0].n, 2);
});

test('a meeting listed without races warns too; a listed race and a meeting the catalogue does not know do not', async () => {
  const bare = await upload(1234568, 2, ['bare-1']);
  assert.deepEqual(bare.warnings.map((w) => [w.code, w.message.split(';')[0]]), [['unlisted_race', 'the catalogue lists meeting 1234568 without races']]);
  assert.deepEqual((await upload(1234567, 7, ['r7-a'])).warnings, []);
  assert.deepEqual((await upload(999001, 3, ['unknown-meeting'])).warnings, []);
});

test('the race is read from the catalogue at each upload: registering it ends the warning', async () => {
  assert.equal((await upload(1234567, 9, ['r9-a'])).warnings[0]?.code, 'unlisted_race');
  await ctx.services.catalogue.importMeetings(parseMeetingsFile('more.json', JSON.stringify([{
    meeting_id: 1234567, date: '2024-05-01', venue: 'Randwick', jurisdiction: 'NSW', code: 'T',
    races: [{ race_number: 9, start_time: '2024-05-01T17:05:00+10:00' }],
  }])));
  assert.deepEqual((await upload(1234567, 9, ['r9-b'])).warnings, []);
});

test('a meeting the catalogue does not know, bets without user_state: stored, with a no_jurisdiction warning (no authority sees them)', async () => {
  const res = await upload(999002, 1, ['ns-1', 'ns-2', 'ns-3'], { user_state: undefined });
  assert.equal(res.created, 3);
  assert.deepEqual(res.warnings, [{
    code: 'no_jurisdiction', field: 'bets/0/user_state', count: 3,
    message: 'meeting 999002 is not in the catalogue and 3 bets have no user_state: no racing authority sees them here until the meeting is imported (meeting import, catalog import) or user_state is given; stored all the same',
  }]);
  // With user_state, or on a meeting the catalogue knows, an authority sees them: no warning.
  assert.deepEqual((await upload(999002, 1, ['ns-4'], { user_state: 'VIC' })).warnings, []);
  assert.deepEqual((await upload(1234567, 7, ['ns-5'], { user_state: undefined })).warnings, []);
});
