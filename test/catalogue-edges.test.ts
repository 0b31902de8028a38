// The race catalogue's refusals on a real database: results whose dividends no bet of the race can
// be settled by, and imports that would change what a race past taking bets was bet on.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createSecretBox } from '../src/crypto/secret-box.ts';
import { AppError } from '../src/errors.ts';
import type { Services } from '../src/services.ts';
import { testClock, testServices } from './helpers/app.ts';
import { freshDatabase, type TestDatabase } from './helpers/db.ts';
import { until } from './wallet-fixtures.ts';

let db: TestDatabase;
let services: Services;

const runners = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => ({ number: n, name: `R${n}`, win: 2 + n, place: 1.5 }));
const raceOf = (n: number, products: string[]) => ({ race_number: n, start_time: `2026-11-21T1${n}:10:00+11:00`, products, runners });
const meeting = (id: number, races: unknown[], extra: Record<string, unknown> = {}) => ({
  meeting_id: id, date: '2026-11-21', venue: 'Flemington', jurisdiction: 'VIC', code: 'T', races, ...extra,
});

async function rejects(p: Promise<unknown>, code: string, message: RegExp): Promise<AppError> {
  try {
    await p;
  } catch (error) {
    assert.ok(error instanceof AppError, String(error));
    assert.equal(error.code, code, error.message);
    assert.match(error.message, message);
    return error;
  }
  return assert.fail(`expected ${code} ${message}`);
}

const results = async (m: number, r: number) =>
  (await db.pool.query('SELECT version FROM race_results WHERE meeting_id = $1 AND race_number = $2', [m, r])).rows.length;

before(async () => {
  db = await freshDatabase();
  services = testServices(db, createSecretBox(randomBytes(32)), { clock: testClock(new Date('2026-11-21T00:00:00Z')) });
});
after(async () => {
  await services.close();
  await db.drop();
});

test('a result refuses a dividend for a single-race product the race does not offer', async () => {
  const c = services.catalogue;
  await c.importCatalog(meeting(910001, [1, 2, 3, 4].map((n) => raceOf(n, ['win', 'place', 'exacta', 'quinella'])),
    { pools: [{ product: 'quaddie', races: [1, 2, 3, 4] }] }));
  for (const n of [1, 3, 4]) await c.setStatus(910001, n, 'closed');
  const placings = [[1], [2], [3]];
  await rejects(c.recordResult(910001, 1, { placings, dividends: { trifecta: 50 } }), 'validation_failed', /dividends\.trifecta: the race does not offer trifecta/);
  await rejects(c.recordResult(910001, 1, { placings, dividends: { exacta: 30, firstfour: 500 } }), 'validation_failed', /dividends\.firstfour: the race does not offer firstfour/);
  assert.equal(await results(910001, 1), 0, 'nothing recorded');
  // What is offered passes: the exacta here, the quaddie on its last race.
  await c.recordResult(910001, 1, { placings, dividends: { exacta: 30 } });
  await c.recordResult(910001, 4, { placings, dividends: { quaddie: 850.4 } });
});

test('a result refuses a per-combination dividend whose runners are no winning combination of its placings', async () => {
  const c = services.catalogue;
  await c.importCatalog(meeting(910002, [1, 2].map((n) => raceOf(n, ['win', 'place', 'exacta', 'quinella', 'trifecta'])),
    { pools: [{ product: 'dailydouble', races: [1, 2] }] }));
  await c.setStatus(910002, 1, 'closed');
  await c.setStatus(910002, 2, 'closed');
  const placings = [[4], [7, 2], [1]];
  // Meant 4-7: given in the wrong order, the exacta bets on 4-7 would wait for a dividend the result seems to give.
  await rejects(c.recordResult(910002, 1, { placings, dividends: { exacta: [{ runners: [7, 4], dividend: 30 }, { runners: [4, 2], dividend: 28.4 }] } }),
    'validation_failed', /dividends\.exacta\[0\]\.runners 7-4 is not a winning combination/);
  await rejects(c.recordResult(910002, 1, { placings, dividends: { exacta: [{ runners: [4, 7, 2], dividend: 30 }] } }),
    'validation_failed', /dividends\.exacta\[0\]\.runners 4-7-2 is not a winning combination/);
  await rejects(c.recordResult(910002, 1, { placings, dividends: { trifecta: [{ runners: [4, 7, 9], dividend: 99 }] } }),
    'validation_failed', /dividends\.trifecta\[0\]\.runners 4-7-9 is not a winning combination/);
  await rejects(c.recordResult(910002, 1, { placings, dividends: { exacta: [{ runners: [4, 7], dividend: 30 }, { runners: [4, 7], dividend: 300 }] } }),
    'validation_failed', /dividends\.exacta\[1\]\.runners 4-7 is given twice/);
  await rejects(c.recordResult(910002, 2, { placings, dividends: { dailydouble: [{ runners: [3, 7], dividend: 45 }] } }),
    'validation_failed', /dividends\.dailydouble\[0\]\.runners must name 2 runners, one winner per leg/);
  assert.equal(await results(910002, 1) + await results(910002, 2), 0, 'nothing recorded');
  // A dead heat's combinations, a quinella in any order, a daily double ending with this race's winner.
  await c.recordResult(910002, 1, { placings, dividends: {
    exacta: [{ runners: [4, 7], dividend: 30 }, { runners: [4, 2], dividend: 28.4 }], quinella: [{ runners: [7, 4], dividend: 12 }, { runners: [2, 4], dividend: 11 }],
  } });
  await c.recordResult(910002, 2, { placings, dividends: { dailydouble: [{ runners: [3, 4], dividend: 45.6 }] } });
});

test('an import does not change the products of a race past taking bets; the same products pass', async () => {
  const c = services.catalogue;
  const all = ['win', 'place', 'exacta'];
  await c.importCatalog(meeting(910003, [1, 2].map((n) => raceOf(n, all))));
  await c.setStatus(910003, 1, 'closed');
  // The race closed with place bets on it; a feed dropping place would let `[[1]]` be its final result.
  await rejects(c.importCatalog(meeting(910003, [{ ...raceOf(1, ['win']), runners: [] }])), 'race_not_trading', /changes the products of race 1 of meeting 910003 \(closed\)/);
  assert.deepEqual((await c.getRace(910003, 1))!.products, all);
  await rejects(c.recordResult(910003, 1, { placings: [[1]] }), 'validation_failed', /the 3 places paid need 3 placed runners/);
  // The same products (in another order) pass; an open race takes new ones.
  await c.importCatalog(meeting(910003, [{ ...raceOf(1, ['exacta', 'win', 'place']), runners: [] }, { ...raceOf(2, ['win']), runners: [] }]));
  assert.deepEqual((await c.getRace(910003, 2))!.products, ['win']);
});

test('a name or venue holding half of a surrogate pair is refused, not stored as U+FFFD; a whole pair is one character', async () => {
  const c = services.catalogue;
  const named = (name: string) => meeting(910004, [{ ...raceOf(1, ['win']), runners: [{ number: 1, name, win: 3 }] }]);
  await rejects(c.importCatalog(named('Lone \ud83d')), 'validation_failed', /name.*unpaired surrogates/);
  await rejects(c.importCatalog(meeting(910004, [raceOf(1, ['win'])], { venue: 'Flem\udc00ington' })), 'validation_failed', /venue.*unpaired surrogates/);
  assert.equal((await db.pool.query('SELECT 1 FROM meetings WHERE meeting_id = 910004')).rows.length, 0, 'nothing imported');
  await c.importCatalog(named('😀'.repeat(100)));
  const { rows } = await db.pool.query<{ name: string }>('SELECT name FROM runners WHERE meeting_id = 910004');
  assert.deepEqual(rows.map((r) => r.name), ['😀'.repeat(100)]);
  const { toMeetings } = await import('../src/modules/catalogue/catalogue-file.ts');
  assert.throws(() => toMeetings([{ meeting_id: 1, date: '2024-05-01', venue: 'Rand\ud800wick', jurisdiction: 'NSW', code: 'T' }]),
    /record 1: venue must not contain half of a surrogate pair/);
});

test('a name or venue people could not read as sent is refused: nothing visible, a C1 control, a line separator, a direction override', async () => {
  const c = services.catalogue;
  const named = (name: string) => meeting(910006, [{ ...raceOf(1, ['win']), runners: [{ number: 1, name, win: 3 }] }]);
  for (const name of ['\u200b', 'Next\u0085Line', 'Two\u2028Lines', 'Paid \u202eknaB', 'Isolated \u2066x\u2069']) {
    await rejects(c.importCatalog(named(name)), 'validation_failed', /name is required: 1 to 100 characters, at least one visible character/);
    await rejects(c.importCatalog(meeting(910006, [raceOf(1, ['win'])], { venue: name })), 'validation_failed', /venue is required: 1 to 200 characters/);
  }
  assert.equal((await db.pool.query('SELECT 1 FROM meetings WHERE meeting_id = 910006')).rows.length, 0, 'nothing imported');
  await c.importCatalog(named('Ça Plane Pour Moi – №1 🐎'));
  const { toMeetings } = await import('../src/modules/catalogue/catalogue-file.ts');
  assert.throws(() => toMeetings([{ meeting_id: 1, date: '2024-05-01', venue: '\u200b\u200b', jurisdiction: 'NSW', code: 'T' }]),
    /record 1: venue must show something: at least one visible character/);
});

test('a {"meetings": [...]} file with another key beside meetings is refused whole, naming it: a misplaced "pools" is never ignored', async () => {
  const c = services.catalogue;
  await c.importCatalog(meeting(910005, [1, 2].map((n) => raceOf(n, ['win'])), { pools: [{ product: 'dailydouble', races: [1, 2] }] }));
  // The operator meant to clear the meeting's pools, but put "pools" beside "meetings".
  const error = await rejects(c.importCatalog({ meetings: [meeting(910005, [{ ...raceOf(1, ['win']), runners: [{ number: 1, name: 'R1', win: 7 }] }])], pools: [] }),
    'validation_failed', /nothing imported: pools is not a field of the catalogue file/);
  assert.deepEqual(error.extensions.errors, [{ field: 'pools', message: 'is not a field of the catalogue file' }]);
  assert.deepEqual(await c.getPools(910005), [{ product: 'dailydouble', races: [1, 2] }]);
  assert.equal((await c.getRace(910005, 1))!.runners[0]!.win, '3.00', 'nothing imported');
});

test('an import that changes a later race\'s products never deadlocks with a take holding an earlier race: it waits in (meeting, race) order', async () => {
  const c = services.catalogue;
  await c.importCatalog(meeting(910020, [raceOf(3, ['win']), raceOf(7, ['win'])]));
  // A take of a multi over races 3 and 7 holds race 3 (FOR SHARE) and is about to lock race 7.
  const take = await db.pool.connect();
  try {
    await take.query('BEGIN');
    await take.query('SELECT 1 FROM race_starts WHERE meeting_id = 910020 AND race_number = 3 FOR SHARE');
    const importing = c.importCatalog(meeting(910020, [raceOf(3, ['win']), raceOf(7, ['win', 'place'])]));
    await until('the import to wait for race 3', async () => (await db.pool.query(
      "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")).rowCount! > 0);
    // Had the import locked race 7 first (its products change), it would hold it now, and the take
    // waiting for it would be a deadlock (40P01), one of them aborted a second later.
    await take.query('SELECT 1 FROM race_starts WHERE meeting_id = 910020 AND race_number = 7 FOR SHARE NOWAIT');
    await take.query('COMMIT');
    await importing;
    assert.deepEqual((await c.getRace(910020, 7))!.products, ['win', 'place']);
  } finally {
    await take.query('ROLLBACK').catch(() => undefined);
    take.release();
  }
});
