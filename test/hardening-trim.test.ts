// One trimming rule for every uploaded text field (docs/upload.md): Unicode white space off both
// ends, always. Property: adding ASCII spaces (or tabs) at either end of any text value never
// changes the verdict, the errors or the stored values.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { buildBet } from './factories/bet-factory.ts';
import type { ValidationContext } from '../src/modules/intake/batch.ts';
import { validateBatch } from '../src/modules/intake/validate-batch.ts';

const ctx: ValidationContext = {
  version: 2, agencies: ['TAB', 'SKY'], currency: 'AUD', userStates: new Set(['NSW', 'VIC', 'QLD']), now: new Date('2024-06-01T00:00:00Z'), timezone: 'UTC',
};
const BET_TEXT = ['source', 'type', 'status', 'user_id', 'terminal_id', 'user_name', 'user_state', 'info_type', 'medium',
  'bet_back_id', 'bet_back_agency', 'currency', 'time', 'bet_back_date', 'exotics_selection'];
const TOP_TEXT = ['meeting_id', 'race_number'];

// Values near the edges: invisible ones, Unicode spaces at one end only, valid codes, and noise.
const piece = fc.constantFrom('', ' ', '\u00a0', '\u2003', '\u3000', '\u0085', '\ufeff', '\t', 'vic', 'VIC', 'cust-7', 'tab', 'sky',
  'win', 'paid', 'aud', '7', '1,2/3', 'cash', '2024-05-01T13:45:00+10:00', 'x y');
const value = fc.array(piece, { maxLength: 4 }).map((parts) => parts.join(''));
const ascii = fc.array(fc.constantFrom(' ', '\t', '\n', '\r'), { minLength: 0, maxLength: 3 }).map((s) => s.join(''));

function run(field: string, v: string) {
  const over = { [field]: v };
  const body = TOP_TEXT.includes(field)
    ? { meeting_id: 1, race_number: 1, bets: [buildBet({ id: 'p-1' })], ...over }
    : { meeting_id: 1, race_number: 1, bets: [buildBet({ id: 'p-1', ...over })] };
  return validateBatch(body, ctx);
}

test('extra ASCII white space at either end never changes the verdict or the stored value', () => {
  fc.assert(fc.property(fc.constantFrom(...BET_TEXT, ...TOP_TEXT), value, ascii, ascii, (field, v, left, right) => {
    assert.deepEqual(run(field, `${left}${v}${right}`), run(field, v));
  }), { numRuns: 3000 });
});

test('the cases of the rule: invisible values are not given, Unicode spaces go at either end', () => {
  const stored = (field: string, v: string) => {
    const r = run(field, v);
    return r.ok ? (r.bets as unknown as Record<string, unknown[]>)[field]![0] : r.errors.map((e) => `${e.field} ${e.message}`);
  };
  assert.deepEqual(stored('user_id', '\u00a0'), ['bets/0/user_id is required']);
  assert.deepEqual(stored('user_id', ' \u00a0'), ['bets/0/user_id is required']);
  assert.equal(stored('user_state', '\u00a0vic'), 'VIC');
  assert.equal(stored('user_state', '\u00a0vic '), 'VIC');
  assert.equal(stored('user_id', '\u00a0cust-7'), 'cust-7');
  assert.equal(stored('user_id', '\u00a0cust-7 '), 'cust-7');
  assert.equal(stored('user_name', 'a\u00a0b'), 'a\u00a0b'); // inside is kept
  assert.equal(stored('user_name', ` ${'\u2003'.repeat(100_000)}x`), 'x'); // linear, not a quadratic regex
});

test('a V2 id is kept exactly as sent (an identifier, not text)', () => {
  const r = validateBatch({ meeting_id: 1, race_number: 1, bets: [buildBet({ id: ' A-1 ' })] }, ctx);
  assert.ok(r.ok);
  assert.equal(r.bets.bet_id[0], ' A-1 ');
});
