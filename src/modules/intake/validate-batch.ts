// Validation of one upload batch (spec 2.1, 2.2, 7.1, 8): a hand-written loop that checks every
// rule, collects EVERY problem of EVERY bet (one invalid bet rejects the batch, and the operator
// needs the whole list to fix it), and writes the valid values straight into column arrays for
// the set-based insert. Valid bets allocate no error objects. Rules are listed in docs/upload.md.
import { echo } from '../../errors.ts';
import { isObject, MAX_RACE_NUMBER, positiveInteger } from '../../racing/values.ts';
import { validateBet, Warnings, type BetState } from './validate-bet.ts';
import { keySegment, type BetColumns, type BetError, type ValidationContext, type ValidationResult } from './batch.ts';

export const MAX_BETS = 1000;
const TOP_FIELDS = new Set(['meeting_id', 'race_number', 'bets']);
const COLUMNS = ['source', 'bet_id', 'leg', 'bet_time', 'bet_type', 'runner_number', 'exotics_selection', 'user_id', 'user_name',
  'user_state', 'terminal_id', 'info_type', 'medium', 'resulted', 'status', 'bonus', 'back_indicator', 'bet_back_id',
  'bet_back_agency', 'bet_back_amount', 'bet_back_revenue', 'bet_back_date', 'amount', 'price', 'payout', 'net_result',
  'currency', 'bet_time_ms'] as const;

function emptyColumns(): BetColumns {
  const c: Record<string, unknown[]> = {};
  for (const f of COLUMNS) c[f] = [];
  return c as unknown as BetColumns;
}

export function validateBatch(body: unknown, ctx: ValidationContext): ValidationResult {
  const errors: BetError[] = [];
  const warnings = new Warnings();
  const top = (field: string, message: string) => errors.push({ index: null, id: null, field, message });
  if (!isObject(body)) {
    top('', 'the body must be a JSON object {meeting_id, race_number, bets}');
    return { ok: false, errors };
  }
  for (const key in body) {
    if (!TOP_FIELDS.has(key)) warnings.add(`top:${key}`, 'unknown_field', keySegment(key), () => `unknown field ${echo(key)} ignored`);
  }
  const meetingId = body.meeting_id == null ? undefined : positiveInteger(body.meeting_id, Number.MAX_SAFE_INTEGER);
  if (meetingId === undefined) top('meeting_id', body.meeting_id == null ? 'is required' : 'must be a positive integer (a JSON integer or a string of digits)');
  const raceNumber = body.race_number == null ? undefined : positiveInteger(body.race_number, MAX_RACE_NUMBER);
  if (raceNumber === undefined) top('race_number', body.race_number == null ? 'is required' : `must be an integer from 1 to ${MAX_RACE_NUMBER} (a JSON integer or a string of digits)`);
  const bets = body.bets;
  if (!Array.isArray(bets)) {
    top('bets', bets == null ? 'is required' : 'must be an array of bets');
    return { ok: false, errors };
  }
  if (bets.length < 1 || bets.length > MAX_BETS) {
    top('bets', `must hold 1 to ${MAX_BETS} bets, got ${bets.length}`);
    return { ok: false, errors };
  }
  const cols = emptyColumns();
  const seen = new Map<string, number>();
  const state: BetState = { ctx, errors, warnings, bet: {}, index: 0, sentId: null, meetingId, raceNumber };
  for (let i = 0; i < bets.length; i++) validateBet(state, bets[i], i, cols, seen);
  if (errors.length || meetingId === undefined || raceNumber === undefined) return { ok: false, errors };
  return { ok: true, meetingId, raceNumber, bets: cols, warnings: warnings.list() };
}
