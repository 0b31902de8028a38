import assert from 'node:assert/strict';
import { test } from 'node:test';
import { daysBetween, daysToMove, daysToMoveNotAfter, earliestDate, shiftDate, targetDate } from './redate.ts';

test('a target date: today in UTC, or a real YYYY-MM-DD', () => {
  const now = new Date('2026-11-23T16:30:00Z');
  assert.equal(targetDate('today', now), '2026-11-23');
  assert.equal(targetDate('2024-02-29', now), '2024-02-29');
  for (const bad of ['2023-02-29', '2024-5-1', 'tomorrow', '']) assert.equal(targetDate(bad, now), undefined, bad);
});

test('dates and timestamps move by whole days, keeping time and offset as written', () => {
  assert.equal(daysBetween('2024-05-01', '2026-11-23'), 936);
  assert.equal(shiftDate('2024-05-01', 936), '2026-11-23');
  assert.equal(shiftDate('2024-05-01T12:10:05+10:00', 936), '2026-11-23T12:10:05+10:00');
  assert.equal(shiftDate('2024-02-28T23:59:59Z', 1), '2024-02-29T23:59:59Z');
  assert.equal(shiftDate('not a date', 5), 'not a date');
  assert.equal(earliestDate(['2024-05-02T01:00:00Z', 7, '2024-05-01T12:00:00+10:00', null]), '2024-05-01');
  assert.equal(earliestDate([]), undefined);
});

test('the days that move the earliest date to a day: none to move without a date', () => {
  assert.equal(daysToMove(['2024-05-02T01:00:00Z', '2024-05-01'], '2024-05-04'), 3);
  assert.equal(daysToMove(['2024-05-01'], '2024-04-30'), -1);
  assert.equal(daysToMove([undefined, 'no date'], '2026-11-23'), 0);
});

test('a replay never moves a timestamp past now: early in the day it lands on the day before', () => {
  const times = ['2024-05-01T12:10:05+10:00', '2024-05-01T16:20:00+10:00']; // 02:10 and 06:20 UTC
  assert.equal(daysToMoveNotAfter(times, '2026-11-24', new Date('2026-11-24T06:20:00Z')), 937, 'the last bet exactly now');
  assert.equal(daysToMoveNotAfter(times, '2026-11-24', new Date('2026-11-24T06:19:59Z')), 936, 'one second early: the day before');
  assert.equal(daysToMoveNotAfter(times, '2026-11-24', new Date('2026-11-24T00:30:00Z')), 936);
  for (const days of [936, 937]) {
    const now = new Date(days === 937 ? '2026-11-24T12:00:00Z' : '2026-11-24T00:30:00Z');
    const moved = times.map((t) => Date.parse(shiftDate(t, daysToMoveNotAfter(times, '2026-11-24', now))));
    assert.ok(moved.every((m) => m <= now.getTime()), 'nothing in the future');
  }
  assert.equal(daysToMoveNotAfter(['2024-05-01', 'no date'], '2026-11-24', new Date('2026-11-24T00:00:00Z')), 937, 'dates alone do not hold it back');
});

test('the latest time of a file of 200,000 bets (no spread of them as arguments: the stack would overflow)', () => {
  const times = Array.from({ length: 200_000 }, (_, i) => `2024-05-01T${String(10 + (i % 10)).padStart(2, '0')}:00:00+10:00`);
  assert.equal(daysToMoveNotAfter(times, '2026-11-24', new Date('2026-11-24T09:00:00Z')), 937, 'the last bet, 19:00+10, is 09:00Z');
  assert.equal(daysToMoveNotAfter(times, '2026-11-24', new Date('2026-11-24T08:59:59Z')), 936);
});
