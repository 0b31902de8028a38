// A tenant's time zone is read by JavaScript (Intl: racing days, deadlines) and by PostgreSQL (AT
// TIME ZONE in report queries): both must read it alike. An offset such as "+10:00" is UTC+10 to
// Intl (Node 22 and later accept it) but UTC−10 to PostgreSQL (a POSIX zone), so it is refused.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { comparisonInstants, isTimeZone, zoneProblem } from './time-zones.ts';

test('IANA names pass; offsets and unknown names do not, whatever the Node.js line accepts', () => {
  for (const zone of ['Australia/Sydney', 'Pacific/Auckland', 'UTC', 'Etc/GMT+10', 'America/Argentina/Buenos_Aires']) assert.ok(isTimeZone(zone), zone);
  for (const zone of ['+10:00', '+1000', '+10', '-05:30', '−10:00', 'Mars/Olympus', '', 'Z']) assert.ok(!isTimeZone(zone), zone);
});

test('a zone the database reads with other offsets than Intl is refused, naming both: an abbreviation, or time zone data of another version', () => {
  const instants = comparisonInstants(new Date('2026-03-01T00:00:00Z'));
  assert.deepEqual([instants[0], instants.at(-1), instants.length], [new Date('2026-01-01T12:00:00Z'), new Date('2026-12-31T12:00:00Z'), 53]);
  assert.ok(instants.every((at, i) => i === 0 || at.getTime() - instants[i - 1]!.getTime() === 7 * 86_400_000), 'a week apart');
  const [january, july] = [new Date('2026-01-15T12:00:00Z'), new Date('2026-07-15T12:00:00Z')];
  const reading = (zone: string, offsets: number[] | null, known = true, abbreviation = false) => ({ zone, known, abbreviation, offsets });
  // As PostgreSQL reads "CET" (the abbreviation, UTC+1 all year), and Intl (summer time in July).
  assert.match(zoneProblem(reading('CET', [60, 60], true, true), [january!, july!])!,
    /^timezone "CET" is a time zone abbreviation to the database: it reads it as UTC\+01:00 on 2026-07-15, Node.js as UTC\+02:00 .*Region\/City/);
  // Older tzdata on one side: the same Region/City name, other offsets.
  assert.equal(zoneProblem(reading('America/St_Johns', [-210, -210]), [january!, july!]),
    'timezone "America/St_Johns" is UTC-03:30 to the database and UTC-02:30 to Node.js on 2026-07-15: their time zone data differ; ' +
    'update the older (the server\'s tzdata or Node.js)');
  assert.equal(zoneProblem(reading('Europe/Paris', [60, 120]), [january!, july!]), undefined, 'read alike');
  assert.equal(zoneProblem(reading('EST', [-300, -300], true, true), [january!, july!]), undefined, 'an abbreviation read alike, also a zone');
  assert.match(zoneProblem(reading('JST', [540, 540], false, true), [january!, july!])!, /a time zone abbreviation to the database: a fixed offset, not a zone/);
});
