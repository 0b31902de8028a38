// An upload and a meeting import of the same meeting, at the same moment: whichever commits second
// sees the first, so the bets always end on the meeting's date. The upload reads the date in the
// statement that stores its bets, after its race lock and the meeting's (shared); the import takes
// the meeting's lock (exclusive) before it re-dates stored bets (racing-days.queries.ts).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { buildBet } from '../../../test/factories/bet-factory.ts';
import { createTestApp, seedClient, type TestContext } from '../../../test/helpers/app.ts';
import { lockRace, upsertBets } from './intake.queries.ts';
import { PLACED_SOURCE } from '../../racing/bet-kinds.ts';
import { lockMeetingShared, refreshRacingDays } from './racing-days.queries.ts';
import { validateBatch } from './validate-batch.ts';

let ctx: TestContext;
let op: Awaited<ReturnType<typeof seedClient>>;
before(async () => {
  ctx = await createTestApp({ WAGERLINE_TOKEN_TTL_SECONDS: '86400' });
  op = await seedClient(ctx, { agencies: ['TAB'], timezone: 'Australia/Sydney' });
});
after(() => ctx.close());

// Taken the evening before the meeting (Sydney time): local date 2024-04-30, the meeting's 2024-05-01.
const EVENING = '2024-04-30T20:00:00+10:00';
const meeting = (meetingId: number) => ({ meeting_id: meetingId, date: '2024-05-01', venue: 'Randwick', jurisdiction: 'NSW', code: 'T' as const, races: [] });

function upload(meetingId: number, raceNumber: number, id: string) {
  return ctx.app.inject({
    method: 'POST', url: '/public/uploadRaceV2', headers: { 'content-type': 'application/json', ...op.auth },
    payload: JSON.stringify({ meeting_id: meetingId, race_number: raceNumber, bets: [buildBet({ id, time: EVENING })] }),
  });
}

async function racingDays(meetingId: number): Promise<string[]> {
  const { rows } = await ctx.db.pool.query('SELECT DISTINCT racing_day::text AS d FROM reported_bets WHERE meeting_id = $1', [meetingId]);
  return rows.map((r) => r.d);
}

/** Resolves once some session waits for an advisory lock. */
async function someoneWaits(): Promise<void> {
  for (let i = 0; ; i++) {
    const { rows } = await ctx.db.pool.query("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted");
    if (rows[0].n > 0) return;
    assert.ok(i < 300, 'nobody waited for a lock');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A connection of its own with a transaction open: another upload, stopped where the test says. */
async function session() {
  const client = await ctx.db.pool.connect();
  await client.query('BEGIN');
  return client;
}

test('a meeting imported while an upload waits for its race lock: the bets take the meeting\'s date', async () => {
  const other = await session(); // another upload of the race holds its lock (an upload storm)
  let pending;
  try {
    await lockRace(other, op.tenant.tenant_id, 8801, 1);
    pending = upload(8801, 1, 'RD-1');
    await someoneWaits();
    await ctx.services.catalogue.importMeetings([meeting(8801)]);
  } finally {
    await other.query('COMMIT');
    other.release();
  }
  assert.equal((await pending).statusCode, 200);
  assert.deepEqual(await racingDays(8801), ['2024-05-01']);
});

test('a meeting imported while an upload of it is between its write and its commit: the import waits, then moves the bets', async () => {
  // The upload's transaction, step by step: race lock, meeting lock, the write (on the bet's local
  // date: the meeting is not registered yet), and no commit yet.
  const result = validateBatch({ meeting_id: 8802, race_number: 1, bets: [buildBet({ id: 'RD-2', time: EVENING })] },
    { version: 2, agencies: ['TAB'], currency: 'AUD', userStates: new Set(['NSW']), now: new Date(), timezone: 'Australia/Sydney' });
  assert.ok(result.ok);
  const uploading = await session();
  let importing;
  try {
    await lockRace(uploading, op.tenant.tenant_id, 8802, 1);
    await lockMeetingShared(uploading, 8802);
    await upsertBets(uploading, { tenantId: op.tenant.tenant_id, meetingId: 8802, raceNumber: 1, clientId: op.client.client_id,
      receivedAt: new Date(), timezone: 'Australia/Sydney', apiVersion: 2, bets: result.bets });
    importing = ctx.services.catalogue.importMeetings([meeting(8802)]);
    await someoneWaits();
  } finally {
    await uploading.query('COMMIT');
    uploading.release();
  }
  await importing;
  assert.deepEqual(await racingDays(8802), ['2024-05-01']);
});

test('an upload while an import of its meeting is between its re-dating and its commit: the upload waits, then takes the date', async () => {
  // The import's transaction, step by step, as the catalogue runs it: the meeting written, the
  // stored bets re-dated (none yet), and no commit yet.
  const importing = await session();
  let pending;
  try {
    await importing.query(`INSERT INTO meetings (meeting_id, meeting_date, venue, jurisdiction, code, imported_at)
                           VALUES (8805, '2024-05-01', 'Randwick', 'NSW', 'T', now())`);
    await refreshRacingDays(importing, [8805], PLACED_SOURCE);
    pending = upload(8805, 1, 'RD-5');
    await someoneWaits();
  } finally {
    await importing.query('COMMIT');
    importing.release();
  }
  assert.equal((await pending).statusCode, 200);
  assert.deepEqual(await racingDays(8805), ['2024-05-01']);
});

test('uploads of a meeting\'s races and imports of it, all at once: no deadlock, every bet on the meeting\'s date', async () => {
  const work: Array<Promise<unknown>> = [];
  for (let i = 0; i < 12; i++) {
    work.push(upload(8803, 1 + (i % 4), `ST-${i}`).then((res) => assert.equal(res.statusCode, 200, res.body)));
    if (i % 4 === 1) work.push(ctx.services.catalogue.importMeetings([meeting(8803), meeting(8804)]));
  }
  await Promise.all(work);
  assert.deepEqual(await racingDays(8803), ['2024-05-01']);
  const { rows } = await ctx.db.pool.query('SELECT count(*)::int AS n FROM reported_bets WHERE meeting_id = 8803');
  assert.equal(rows[0].n, 12);
});
