// `wagerline meeting import <file.json|csv>` through the real bin/wagerline.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { cliEnv, runCli } from '../../../test/helpers/cli.ts';
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

test('imports the sample JSON and CSV files; a re-import updates instead of duplicating', async () => {
  const json = await runCli(['meeting', 'import', path.join(examples, 'meetings.json')], env);
  assert.equal(json.code, 0, json.stderr);
  assert.deepEqual(json.json(), { imported: 2, races: 3 });
  const csv = await runCli(['meeting', 'import', path.join(examples, 'meetings.csv')], env);
  assert.equal(csv.code, 0, csv.stderr);
  assert.deepEqual(csv.json(), { imported: 2, races: 4 });
  const { rows } = await db.pool.query(
    `SELECT m.meeting_id::int, m.meeting_date::text, m.venue, m.jurisdiction, m.code, count(r.race_number)::int AS races
     FROM meetings m LEFT JOIN race_starts r USING (meeting_id) GROUP BY m.meeting_id ORDER BY m.meeting_id`);
  assert.deepEqual(rows, [
    { meeting_id: 1234567, meeting_date: '2024-05-01', venue: 'Randwick', jurisdiction: 'NSW', code: 'T', races: 3 },
    { meeting_id: 1234568, meeting_date: '2024-05-01', venue: 'Albion Park', jurisdiction: 'QLD', code: 'H', races: 0 },
    { meeting_id: 1234569, meeting_date: '2024-05-01', venue: 'Wentworth Park', jurisdiction: 'NSW', code: 'G', races: 1 },
  ]);
});

test('a bad file is refused whole, with every problem on one stderr line (no --help hint: not a usage mistake) and nothing on stdout', async () => {
  const file = path.join(dir, 'bad.csv');
  writeFileSync(file, 'meeting_id,date,venue,jurisdiction,code,race_number,start_time\n' +
    '5001,2024-05-01,Flemington,VIC,T,1,2024-05-01T12:00:00+10:00\n' +
    '5002,2024-02-30,Caulfield,VIC,X,1,noon\n');
  const res = await runCli(['meeting', 'import', file], env);
  assert.notEqual(res.code, 0);
  assert.equal(res.stdout, '');
  assert.equal(res.code, 1, 'the file was read: refused, not a usage error');
  assert.equal(res.stderr.trim().split('\n').length, 1, `one error line, no --help hint: ${res.stderr}`);
  assert.match(res.stderr, /nothing imported: record 2: date must be YYYY-MM-DD; record 2: code must be T/);
  assert.match(res.stderr, /start_time must be an ISO 8601/);
  const { rows } = await db.pool.query('SELECT 1 FROM meetings WHERE meeting_id = 5001');
  assert.equal(rows.length, 0);

  const txt = path.join(dir, 'meetings.txt');
  writeFileSync(txt, '');
  assert.match((await runCli(['meeting', 'import', txt], env)).stderr, /must end in .json or .csv/);
  assert.match((await runCli(['meeting', 'import', path.join(dir, 'missing.json')], env)).stderr, /ENOENT|no such file/);
  const broken = path.join(dir, 'broken.json');
  writeFileSync(broken, '[{');
  assert.match((await runCli(['meeting', 'import', broken], env)).stderr, /not valid JSON/);
});

test('--date moves the file\'s racing day: meeting dates and race start times by the same whole days', async () => {
  const res = await runCli(['meeting', 'import', path.join(examples, 'meetings.json'), '--date', '2026-11-20'], env);
  assert.equal(res.code, 0, res.stderr);
  assert.deepEqual(res.json(), { imported: 2, races: 3, date: '2026-11-20', shifted_days: 933 });
  const { rows } = await db.pool.query(
    `SELECT m.meeting_date::text, r.race_number, r.start_time FROM meetings m JOIN race_starts r USING (meeting_id) WHERE meeting_id = 1234567 ORDER BY r.race_number`);
  assert.deepEqual(rows.map((r) => [r.meeting_date, r.race_number, r.start_time.toISOString()]), [
    ['2026-11-20', 1, '2026-11-20T02:15:00.000Z'], ['2026-11-20', 7, '2026-11-20T05:45:00.000Z'], ['2026-11-20', 8, '2026-11-20T06:25:00.000Z'],
  ]);
  const bad = await runCli(['meeting', 'import', path.join(examples, 'meetings.json'), '--date', 'someday'], env);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--date.*must be "today" or a date YYYY-MM-DD/);
});
