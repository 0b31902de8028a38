// A tenant's time zone is read by JavaScript (Intl: racing days, deadlines) and by PostgreSQL (AT
// TIME ZONE in report queries): both must read it alike. An offset such as "+10:00" is UTC+10 to
// Intl (Node 22 and later accept it) but UTC−10 to PostgreSQL (a POSIX zone), so it is refused.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isTimeZone } from './time-zones.ts';

test('IANA names pass; offsets and unknown names do not, whatever the Node.js line accepts', () => {
  for (const zone of ['Australia/Sydney', 'Pacific/Auckland', 'UTC', 'Etc/GMT+10', 'America/Argentina/Buenos_Aires']) assert.ok(isTimeZone(zone), zone);
  for (const zone of ['+10:00', '+1000', '+10', '-05:30', '−10:00', 'Mars/Olympus', '', 'Z']) assert.ok(!isTimeZone(zone), zone);
});
