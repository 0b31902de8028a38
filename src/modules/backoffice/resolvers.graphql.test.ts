import assert from 'node:assert/strict';
import { test } from 'node:test';
import { instant } from './resolvers.graphql.ts';

/** What a DateTime is: the instant parsed and printed in ISO 8601, UTC, with milliseconds. */
function reference(value: unknown): string | Error {
  const date = value instanceof Date ? value : typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T.*(Z|[+-]\d{2}:?\d{2})$/i.test(value) ? new Date(value) : undefined;
  return !date || Number.isNaN(date.getTime()) ? new Error('not a DateTime') : date.toISOString();
}

const attempt = (value: unknown) => { try { return instant(value); } catch { return new Error('not a DateTime'); } };

test('DateTime text already canonical passes through; every other text is parsed and printed the same as ever', () => {
  const values: unknown[] = [];
  for (const year of ['0000', '1970', '2024', '2026', '9999']) {
    for (let month = 0; month <= 13; month++) {
      for (const day of ['00', '01', '09', '10', '19', '28', '29', '30', '31', '32']) {
        for (const time of ['00:00:00.000', '23:59:59.999', '24:00:00.000', '12:60:00.000', '12:00:60.000', '07:05:03.1', '07:05:03']) {
          for (const zone of ['Z', 'z', '+00:00', '+10:00', '-0330', '']) values.push(`${year}-${String(month).padStart(2, '0')}-${day}T${time}${zone}`);
        }
      }
    }
  }
  values.push(new Date(Date.UTC(2026, 1, 28, 23, 59, 59, 999)), new Date(Number.NaN), '', 'yesterday', 42, null, ' 2026-01-01T00:00:00.000Z');
  for (const value of values) assert.deepEqual(attempt(value), reference(value), String(value));
});

test('Decimal: a multi\'s exact odds (the product of its legs\' prices) pass; what is not decimal text does not', async () => {
  const { decimal } = await import('./resolvers.graphql.ts');
  assert.equal(decimal('4540.56225438947877'), '4540.56225438947877', '3.33 ^ 7: 14 decimals');
  assert.equal(decimal(`1.${'5'.repeat(60)}`), `1.${'5'.repeat(60)}`, 'ten legs of six places');
  for (const bad of ['1e5', '12.', '', 'NaN', `1.${'5'.repeat(65)}`, 3.5]) assert.throws(() => decimal(bad), /a Decimal is decimal text/);
});
