import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toCsv } from './reports.csv.ts';

test('CSV: header row, CRLF, quoting, empty nulls, formula text defused, numbers untouched', () => {
  const csv = toCsv(['medium', 'bonus', 'net_result', 'meeting_id'], [
    { medium: 'app, "native"', bonus: true, net_result: '-13.42', meeting_id: 100 },
    { medium: '=HYPERLINK("x")', bonus: false, net_result: '0.00', meeting_id: null },
    { medium: null, bonus: null, net_result: '+5', meeting_id: 7 },
  ]);
  assert.equal(csv, 'medium,bonus,net_result,meeting_id\r\n' +
    '"app, ""native""",true,-13.42,100\r\n' +
    '"\'=HYPERLINK(""x"")",false,0.00,\r\n' +
    ',,\'+5,7\r\n');
});
