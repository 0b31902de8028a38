// The rules of one bet object (spec 2.2 and what it implies; docs/upload.md has the table).
import { checkSelection, parseSelection, STATUS_BY_LOWER, TYPE_BY_LOWER, TYPE_RULES, MAX_RUNNER, type BetType } from '../../racing/selection.ts';
import { MICRO_PLACES, numberToDecimal, parseDecimal } from '../../racing/money.ts';
import { parseInstant, positiveInteger, trimText, MAX_RACE_NUMBER, MONEY_LIMIT, type Instant } from '../../racing/values.ts';
import { localDate } from '../../racing/race-times.ts';
import { echo } from '../../errors.ts';
import { keySegment, type BetColumns, type BetError, type UploadWarning, type ValidationContext } from './batch.ts';
import { isObject } from '../../racing/values.ts';
import { currencyCode } from '../../racing/currencies.ts';

/**
 * The first racing day: reports take days of the years 1900 to 9999 (reports.service.ts), as bet
 * times are (year ≥ 1900). A time early on 1900-01-01 in its own offset can still fall on 1899-12-31
 * in the operator's zone, a racing day no report could ask for: refused, so that every stored bet
 * is in some report. Only an instant before FIRST_DAY_CHECKED_MS needs the (slower) zone look-up:
 * no zone is 24 hours behind UTC.
 */
const FIRST_RACING_DAY = '1900-01-01';
const FIRST_DAY_CHECKED_MS = Date.UTC(1900, 0, 2);

/** Tolerated clock difference between an operator and us for "placed in the future". */
export const CLOCK_SKEW_MS = 5 * 60_000;
export const MAX_LEG = 99;
export const BET_FIELDS = new Set([
  'source', 'id', 'leg', 'time', 'type', 'runner_number', 'exotics_selection', 'user_id', 'user_name', 'user_state',
  'terminal_id', 'info_type', 'medium', 'resulted', 'status', 'bonus', 'back_indicator', 'bet_back_id', 'bet_back_agency',
  'bet_back_amount', 'bet_back_revenue', 'bet_back_date', 'amount', 'price', 'payout', 'net_result', 'currency',
  // Not bet fields: a bet may repeat its request's meeting and race (checkRace), never name others.
  'meeting_id', 'race_number',
]);
/** user_id values that mean "no account": a terminal_id must say where the bet was taken (2.2). */
const ANONYMOUS = new Set(['cash', 'anon', 'anonymous']);
const CONTROL = /[\u0000-\u001f\u007f]/;
// An unpaired UTF-16 surrogate cannot be stored as UTF-8: the driver would turn it into U+FFFD, so
// two different ids ("a\ud800", "a\ud801") would become one key in the same statement (a 500).
const LONE_SURROGATE = /\p{Cs}/u;
const NOT_UNICODE = 'must be valid Unicode text (it holds an unpaired surrogate \\uD800-\\uDFFF)';

/** Tallies warnings per kind so that 1,000 flexi stakes give one warning, not 1,000. */
export class Warnings {
  private readonly byKey = new Map<string, UploadWarning>();
  add(key: string, code: UploadWarning['code'], field: string, message: () => string): void {
    const w = this.byKey.get(key);
    if (w) w.count++;
    else this.byKey.set(key, { code, message: message(), count: 1, field });
  }
  list(): UploadWarning[] {
    return [...this.byKey.values()];
  }
}

/** amount - payout = net_result, exactly (values as validated: at most 6 decimals). */
function balances(amount: string, payout: string, netResult: string): boolean {
  return micros(amount) - micros(payout) === micros(netResult);
}

function micros(text: string): bigint {
  return parseDecimal(text, MICRO_PLACES)!;
}


/** Per-batch state of the per-bet helpers (module-level functions: no closures per bet). */
export interface BetState {
  ctx: ValidationContext;
  errors: BetError[];
  warnings: Warnings;
  bet: Record<string, unknown>;
  index: number;
  sentId: string | number | null;
  /** The request's meeting and race (undefined when that top-level field is itself invalid). */
  meetingId: number | undefined;
  raceNumber: number | undefined;
}

function fail(st: BetState, field: string, message: string): undefined {
  st.errors.push({ index: st.index, id: st.sentId, field: field ? `bets/${st.index}/${field}` : `bets/${st.index}`, message });
  return undefined;
}

/**
 * Spec 2.2 ties user_id and terminal_id both ways: an anonymous bet (cash, anon, anonymous) must say
 * which terminal took it, and a bet taken at a terminal must be anonymous. Skipped when either field
 * already failed (undefined): one error per field is enough.
 */
function checkTerminal(st: BetState, userId: string | null | undefined, terminalId: string | null | undefined): void {
  if (!userId || terminalId === undefined) return;
  const anonymous = ANONYMOUS.has(userId.toLowerCase());
  if (anonymous && terminalId === null) fail(st, 'terminal_id', `is required when user_id is ${echo(userId)}`);
  else if (!anonymous && terminalId !== null) {
    fail(st, 'user_id', `must be cash, anon or anonymous when terminal_id is given, got ${echo(userId)}`);
  }
}

/**
 * One meeting and one race per request (spec 8): a bet carrying its own meeting_id or race_number
 * (as the upload client's files do) must name the request's. Ignored, a bet of race 5 sent in the
 * request of race 1 would be stored, and reported to authorities, as a bet on race 1.
 */
function checkRace(st: BetState): void {
  const own = (field: 'meeting_id' | 'race_number', want: number | undefined, max: number) => {
    const v = st.bet[field];
    if (v == null || v === '' || want === undefined || positiveInteger(v, max) === want) return;
    fail(st, field, `is ${echo(v)}, but this request is for meeting ${st.meetingId ?? '?'} race ${st.raceNumber ?? '?'}: `
      + 'one meeting and one race per request (send the bets of another race in a request of their own)');
  };
  own('meeting_id', st.meetingId, Number.MAX_SAFE_INTEGER);
  own('race_number', st.raceNumber, MAX_RACE_NUMBER);
}

/** The bet with every string value trimmed (trimText), except the id, which is kept exactly as sent. */
function trimmed(raw: Record<string, unknown>): Record<string, unknown> {
  const bet: Record<string, unknown> = {};
  for (const key in raw) {
    const v = raw[key];
    bet[key] = typeof v === 'string' && key !== 'id' ? trimText(v) : v;
  }
  return bet;
}

// Text fields (trimmed by validateBet): absent, null and "" are "not given" for optional ones.
function text(st: BetState, field: string, max: number, required = false, integerOk = false): string | null | undefined {
  const v = st.bet[field];
  if (typeof v === 'string') {
    if (v === '') return required ? fail(st, field, 'is required') : null;
    if (v.length > max) return fail(st, field, `must be at most ${max} characters`);
    if (CONTROL.test(v)) return fail(st, field, 'must not contain control characters');
    if (LONE_SURROGATE.test(v)) return fail(st, field, NOT_UNICODE);
    return v;
  }
  if (integerOk && typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
  if (v == null) return required ? fail(st, field, 'is required') : null;
  return fail(st, field, integerOk ? 'must be a string or an integer' : 'must be a string');
}

function flag(st: BetState, field: string): boolean | null | undefined {
  const v = st.bet[field];
  if (v == null) return null;
  return typeof v === 'boolean' ? v : fail(st, field, 'must be true or false');
}

function money(st: BetState, field: string, required = false, signed = false): string | null | undefined {
  const v = st.bet[field];
  if (v == null) return required ? fail(st, field, 'is required') : null;
  if (typeof v !== 'number' || !Number.isFinite(v)) return fail(st, field, 'must be a finite JSON number');
  if (!signed && v < 0) return fail(st, field, 'must not be negative');
  if (Math.abs(v) >= MONEY_LIMIT) return fail(st, field, 'must be below 1,000,000,000,000');
  const m = numberToDecimal(v, MICRO_PLACES);
  if (m.sentPlaces > 2) {
    const at = `bets/${st.index}/${field}`;
    const stored = m.sentPlaces > MICRO_PLACES ? 'stored rounded to 6 places' : 'stored exactly';
    st.warnings.add(`precision:${field}`, 'precision', at, () => `${field} has more than 2 decimal places (e.g. ${at} = ${v}); ${stored}`);
  }
  return m.text;
}

function instant(st: BetState, field: string, required: boolean): Instant | null | undefined {
  const v = st.bet[field];
  if (v == null) return required ? fail(st, field, 'is required') : null;
  const at = typeof v === 'string' ? parseInstant(v) : undefined;
  if (!at) return fail(st, field, 'must be an ISO 8601 date-time with a UTC offset, e.g. 2024-05-01T13:45:00+10:00');
  if (at.ms > st.ctx.now.getTime() + CLOCK_SKEW_MS) return fail(st, field, 'is in the future');
  return at;
}

export function validateBet(st: BetState, raw: unknown, i: number, cols: BetColumns, seen: Map<string, number>): void {
  st.index = i;
  st.sentId = isObject(raw) && (typeof raw.id === 'string' || typeof raw.id === 'number') ? raw.id : null;
  if (!isObject(raw)) return void fail(st, '', 'must be a JSON object');
  const bet = trimmed(raw);
  st.bet = bet;
  const { ctx, errors, warnings } = st;
  checkRace(st);
  for (const key in bet) {
    // The field as messages quote a key (keySegment: at most 40 characters), never the whole name.
    if (!BET_FIELDS.has(key)) warnings.add(`bet:${key}`, 'unknown_field', `bets/${i}/${keySegment(key)}`, () => `unknown field ${echo(key)} ignored`);
  }

  // id: a JSON integer on V1, a string on V2 (spec 9); stored as text either way.
  let betId: string | undefined;
  const id = bet.id;
  if (ctx.version === 1) {
    if (typeof id === 'number' && Number.isSafeInteger(id) && id >= 0) betId = String(id);
    else fail(st, 'id', id == null ? 'is required' : 'must be a JSON integer from 0 to 9007199254740991 on /public/uploadRace (string ids: /public/uploadRaceV2)');
  } else if (typeof id === 'string' && id.length >= 1 && id.length <= 64 && !CONTROL.test(id)) {
    if (LONE_SURROGATE.test(id)) fail(st, 'id', NOT_UNICODE);
    else betId = id;
  } else fail(st, 'id', id == null ? 'is required' : 'must be a string of 1 to 64 characters without control characters on /public/uploadRaceV2 (integer ids: /public/uploadRace)');

  // source: defaulted for a single-agency client, required otherwise, always one of its agencies.
  let source: string | undefined;
  const agencies = ctx.agencies;
  if (bet.source == null || bet.source === '') {
    if (agencies.length === 1) source = agencies[0];
    else fail(st, 'source', agencies.length ? `is required: this client reports for several agencies (${agencies.join(', ')})` : 'cannot be checked: this client has no agencies configured');
  } else if (typeof bet.source !== 'string') fail(st, 'source', 'must be a string');
  else if (agencies.includes(bet.source.toUpperCase())) source = bet.source.toUpperCase();
  else fail(st, 'source', `${echo(bet.source)} is not one of this client's agencies (${agencies.join(', ') || 'none configured'})`);

  let leg = 1;
  if (bet.leg != null) {
    if (typeof bet.leg === 'number' && Number.isInteger(bet.leg) && bet.leg >= 1 && bet.leg <= MAX_LEG) leg = bet.leg;
    else fail(st, 'leg', `must be an integer from 1 to ${MAX_LEG}`);
  }
  let type: BetType | undefined;
  if (typeof bet.type === 'string') type = TYPE_BY_LOWER.get(bet.type.toLowerCase());
  if (!type) fail(st, 'type', bet.type == null ? 'is required' : `must be one of ${[...TYPE_BY_LOWER.keys()].join(', ')}`);
  const status = typeof bet.status === 'string' ? STATUS_BY_LOWER.get(bet.status.toLowerCase()) : undefined;
  if (!status) fail(st, 'status', bet.status == null ? 'is required' : `must be one of ${[...STATUS_BY_LOWER.values()].join(', ')}`);
  if (type && leg > TYPE_RULES[type].maxLeg) {
    fail(st, 'leg', TYPE_RULES[type].maxLeg === 1 ? `must be 1 for a ${type} bet` : `a ${type} has legs 1 to ${TYPE_RULES[type].maxLeg}`);
  }

  // Exactly one of runner_number and exotics_selection, and the one the type takes.
  let runner: number | null = null;
  let selection: string | null = null;
  const hasRunner = bet.runner_number != null;
  const hasSelection = bet.exotics_selection != null && bet.exotics_selection !== '';
  // Both given, but runner_number no runner at all ("" of an empty CSV cell): that field is the one to fix.
  const runnerValid = Number.isInteger(bet.runner_number) && (bet.runner_number as number) >= 1 && (bet.runner_number as number) <= MAX_RUNNER;
  if (hasRunner && hasSelection && !runnerValid) {
    fail(st, 'runner_number', `must be an integer from 1 to ${MAX_RUNNER} (omit it, or send null, when exotics_selection is given), got ${echo(bet.runner_number)}`);
  } else if (hasRunner && hasSelection) fail(st, 'exotics_selection', 'give runner_number or exotics_selection, not both');
  else if (!hasRunner && !hasSelection) fail(st, type && TYPE_RULES[type].takes === 'selection' ? 'exotics_selection' : 'runner_number', 'one of runner_number and exotics_selection is required');
  else if (hasRunner) {
    const r = bet.runner_number;
    if (typeof r !== 'number' || !Number.isInteger(r) || r < 1 || r > MAX_RUNNER) fail(st, 'runner_number', `must be an integer from 1 to ${MAX_RUNNER}`);
    else if (type && TYPE_RULES[type].takes === 'selection') fail(st, 'runner_number', `a ${type} bet takes exotics_selection, not runner_number`);
    else runner = r;
  } else if (typeof bet.exotics_selection !== 'string') fail(st, 'exotics_selection', 'must be a string such as "1,2/3" or "4,5,6(BOXED)"');
  else {
    const parsed = parseSelection(bet.exotics_selection);
    const problem = typeof parsed === 'string' ? parsed
      : type && TYPE_RULES[type].takes === 'runner' ? `a ${type} bet takes runner_number, not exotics_selection`
        : type ? checkSelection(type, parsed) : undefined;
    if (problem) fail(st, 'exotics_selection', problem);
    else if (typeof parsed !== 'string') selection = parsed.canonical;
  }

  const time = instant(st, 'time', true);
  if (time && time.ms < FIRST_DAY_CHECKED_MS) {
    const day = localDate(time.ms, ctx.timezone);
    if (day < FIRST_RACING_DAY) {
      fail(st, 'time', `falls on ${day} in the operator's time zone (${ctx.timezone}), before the first racing day reports cover (${FIRST_RACING_DAY})`);
    }
  }
  const userId = text(st, 'user_id', 100, true, true);
  const terminalId = text(st, 'terminal_id', 100, false, true);
  checkTerminal(st, userId, terminalId);
  const userName = text(st, 'user_name', 200);
  let userState = text(st, 'user_state', 32);
  if (userState) {
    const upper = userState.toUpperCase();
    if (ctx.userStates.has(upper)) userState = upper;
    else userState = fail(st, 'user_state', `${echo(userState)} is not one of ${[...ctx.userStates].join(', ')}`);
  }
  const infoType = text(st, 'info_type', 100);
  const medium = text(st, 'medium', 100);
  const resulted = flag(st, 'resulted');
  const bonus = flag(st, 'bonus');
  const backIndicator = flag(st, 'back_indicator');
  const betBackId = text(st, 'bet_back_id', 64, false, true);
  const betBackAgency = text(st, 'bet_back_agency', 100);
  const betBackAmount = money(st, 'bet_back_amount');
  const betBackRevenue = money(st, 'bet_back_revenue');
  const betBackDate = instant(st, 'bet_back_date', false);
  const amount = money(st, 'amount', true);
  const price = money(st, 'price');
  const payout = money(st, 'payout');
  const netResult = money(st, 'net_result', false, true);
  let currency = ctx.currency;
  if (bet.currency != null && bet.currency !== '') {
    const c = currencyCode(bet.currency);
    if (c) currency = c;
    else fail(st, 'currency', `must be an active ISO 4217 currency code such as "AUD", got ${echo(bet.currency)}`);
  }

  if (source !== undefined && betId !== undefined) {
    const key = `${source}\u0000${betId}\u0000${leg}`;
    const first = seen.get(key);
    if (first !== undefined) fail(st, 'id', `repeats bets/${first} (same source, id and leg): a bet may appear once per batch`);
    else seen.set(key, i);
  }
  // Any error anywhere rejects the batch: stop building columns once there is one.
  if (errors.length) return;

  // net_result is the operator's view, amount - payout (2.2); a mismatch is worth a warning only.
  if (payout && netResult && (status === 'Paid' || status === 'PartialRefund') && bonus !== true
    && !balances(amount!, payout, netResult)) {
    warnings.add('net_result', 'net_result_mismatch', `bets/${i}/net_result`,
      () => `net_result is not amount - payout (e.g. bets/${i}: ${amount} - ${payout} != ${netResult})`);
  }
  cols.source.push(source!); cols.bet_id.push(betId!); cols.leg.push(leg);
  cols.bet_time.push(time!.text); cols.bet_time_ms.push(time!.ms); cols.bet_type.push(type!);
  cols.runner_number.push(runner); cols.exotics_selection.push(selection); cols.user_id.push(userId!);
  cols.user_name.push(userName!); cols.user_state.push(userState!); cols.terminal_id.push(terminalId!);
  cols.info_type.push(infoType!); cols.medium.push(medium!); cols.resulted.push(resulted!); cols.status.push(status!);
  cols.bonus.push(bonus ?? false); cols.back_indicator.push(backIndicator ?? false); cols.bet_back_id.push(betBackId!);
  cols.bet_back_agency.push(betBackAgency!); cols.bet_back_amount.push(betBackAmount!); cols.bet_back_revenue.push(betBackRevenue!);
  cols.bet_back_date.push(betBackDate ? betBackDate.text : null); cols.amount.push(amount!); cols.price.push(price!);
  cols.payout.push(payout!); cols.net_result.push(netResult!); cols.currency.push(currency);
}
