// `wagerline catalog import|sample` and `wagerline race price|scratch|status|show` through the real
// bin/wagerline: one JSON object on stdout; a bad argument one line on stderr, non-zero, nothing written.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { cliChecks, cliEnv } from '../../../test/helpers/cli.ts';
import { freshDatabase, type TestDatabase } from '../../../test/helpers/db.ts';

let db: TestDatabase;
let env: Record<string, string>;
let dir: string;
const examples = path.resolve(import.meta.dirname, '../../../examples');

before(async () => {
  db = await freshDatabase();
  env = cliEnv(db.url);
  dir = env.WAGERLINE_DATA_DIR!;
});
after(() => db.drop());

const { ok, refused } = cliChecks(() => env);
const NOTHING_SETTLED = { jobs: 0, bets_seen: 0, bets_changed: 0, calls_queued: 0, problems: [] };

test('catalog import: the example racing day and examples/meetings.json; a bad file is refused whole', async () => {
  assert.deepEqual(await ok(['catalog', 'import', path.join(examples, 'racing-day.json')]), { imported: 2, races: 16, runners: 164, price_changes: 162, pools: 4, settlement: NOTHING_SETTLED });
  assert.deepEqual(await ok(['catalog', 'import', path.join(examples, 'meetings.json')]), { imported: 2, races: 3, runners: 0, price_changes: 0, pools: 0, settlement: NOTHING_SETTLED });
  const bad = path.join(dir, 'bad.json');
  writeFileSync(bad, JSON.stringify({ meeting_id: 777, date: '2026-02-30', venue: 'X', jurisdiction: 'VIC', code: 'T',
    races: [{ race_number: 1, start_time: '2026-02-01T12:00:00+11:00', runners: [{ number: 1, name: 'A', win: 0.9 }] }] }));
  await refused(['catalog', 'import', bad], /^wagerline: nothing imported: date must be a date YYYY-MM-DD; races\/0\/runners\/0\/win must be a price/);
  const { rows } = await db.pool.query('SELECT 1 FROM meetings WHERE meeting_id = 777');
  assert.equal(rows.length, 0);
  const broken = path.join(dir, 'broken.json');
  writeFileSync(broken, '{');
  await refused(['catalog', 'import', broken], /not valid JSON/);
});

test('race show, price, scratch and status', async () => {
  const race = await ok(['race', 'show', '900001', '1']);
  assert.deepEqual([race.meeting_name, race.status, race.runners.length], ['Flemington', 'open', race.runners.length]);
  assert.ok(race.runners.length >= 8);
  const priced = await ok(['race', 'price', '900001', '1', '1', '--win', '3.4', '--place', '1.5']);
  assert.deepEqual([priced.runner.win, priced.runner.place, priced.changed], ['3.40', '1.50', true]);
  const { rows } = await db.pool.query('SELECT win_price, place_price FROM runner_price_history WHERE meeting_id = 900001 AND race_number = 1 AND runner_number = 1 ORDER BY seq');
  assert.deepEqual(rows.at(-1), { win_price: '3.40', place_price: '1.50' });
  const scratched = await ok(['race', 'scratch', '900001', '1', '2', '--win-deduction', '15', '--place-deduction', '5']);
  assert.deepEqual([scratched.runner.scratched, scratched.runner.win_deduction, scratched.runner.place_deduction], [true, '15.00', '5.00']);
  assert.deepEqual(scratched.settlement, { jobs: 1, bets_seen: 0, bets_changed: 0, calls_queued: 0, problems: [] });
  assert.deepEqual(await ok(['race', 'status', '900001', '1', 'suspended']), {
    meeting_id: 900001, race_number: 1, event_id: race.event_id, status: 'suspended', previous_status: 'open', changed: true, settlement: null });
  await ok(['race', 'status', '900001', '1', 'closed']);
  await refused(['race', 'status', '900001', '1', 'open'], /^wagerline: race 1 of meeting 900001: race is closed and cannot become open/);
  assert.equal((await ok(['race', 'show', '900001', '1'])).status, 'closed');
});

test('bad arguments: one line on stderr, non-zero exit, nothing written', async () => {
  const before = (await db.pool.query('SELECT count(*)::int AS n FROM runner_price_history')).rows[0].n;
  await refused(['race', 'price', '900001', '2', '1', '--win', '3.456'], /--win.*at most 2 decimals/);
  await refused(['race', 'price', '900001', '2', '1', '--win', '1'], /from 1.01/);
  await refused(['race', 'price', '900001', '2', '1'], /give --win, --place or both/);
  await refused(['race', 'price', 'abc', '2', '1', '--win', '3'], /meeting_id must be an integer/);
  await refused(['race', 'price', '900001', '2', '100', '--win', '3'], /runner must be an integer from 1 to 99/);
  await refused(['race', 'price', '900001', '42', '1', '--win', '3'], /no race 42 of meeting 900001/);
  await refused(['race', 'scratch', '900001', '2', '1', '--win-deduction', '100'], /0 to 99.99/);
  await refused(['race', 'status', '900001', '2', 'final'], /interim and final are set by results/);
  await refused(['race', 'show', '900001', '42'], /no race 42/);
  await refused(['catalog', 'sample', '--date', '2026-13-01'], /"today" or a date/);
  const afterCount = (await db.pool.query('SELECT count(*)::int AS n FROM runner_price_history')).rows[0].n;
  assert.equal(afterCount, before);
  assert.equal((await ok(['race', 'show', '900001', '2'])).status, 'open');
});

test('catalog sample --date today leaves open races starting later today', async () => {
  const sample = await ok(['catalog', 'sample', '--date', 'today']);
  assert.equal(sample.imported, 2);
  for (const m of sample.meetings) {
    assert.ok(Date.parse(m.first_start) > Date.now(), m.first_start);
    const race = await ok(['race', 'show', String(m.meeting_id), '1']);
    assert.equal(race.status, 'open');
    assert.ok(race.runners.some((r: { win: string | null }) => r.win !== null));
  }
});

test('a closed race keeps its prices: race price and an import changing one are refused, the same prices pass', async () => {
  // Race 1 of 900001 was priced at 3.40 / 1.50 by `race price`, then closed (above); the example file says 3.50.
  assert.equal((await ok(['race', 'show', '900001', '1'])).status, 'closed');
  await refused(['race', 'price', '900001', '1', '1', '--win', '3.6'], /^wagerline: race 1 of meeting 900001 is closed: prices change only while it is open or suspended/);
  const history = async () => (await db.pool.query('SELECT count(*)::int AS n FROM runner_price_history WHERE meeting_id = 900001')).rows[0].n;
  const before = await history();
  await refused(['catalog', 'import', path.join(examples, 'racing-day.json')],
    /^wagerline: nothing imported: the file changes the prices of runner 1 in race 1 of meeting 900001 \(closed\);/);
  assert.equal(await history(), before, 'nothing of the file written');
  const race = await ok(['race', 'show', '900001', '1']);
  const same = path.join(dir, 'same-prices.json');
  writeFileSync(same, JSON.stringify({ meeting_id: 900001, date: race.date, venue: race.meeting_name, jurisdiction: race.jurisdiction, code: race.code,
    races: [{ race_number: 1, start_time: race.start_time, runners: race.runners.map((r: { number: number; name: string; win: string | null; place: string | null }) =>
      ({ number: r.number, name: r.name, win: r.win, place: r.place })) }] }));
  assert.equal((await ok(['catalog', 'import', same])).price_changes, 0);
});
