// Bets placed through wagerline, written to the reporting store as an operator would upload them
// (docs/reports.md, "Bets placed through wagerline"): the upload's field names, types, statuses
// and selection text, under the source WAGERLINE, one row per leg. The betting module hands them
// over inside its own transaction, so a bet and its report commit or roll back together.
import type { Queryable } from '../../db/pool.ts';
import { KIND_RULES, PLACED_SOURCE, type BetKind } from '../../racing/bet-kinds.ts';
import { STATUSES } from '../../racing/selection.ts';
import { storePlacedBets, type PlacedColumns } from './placed.queries.ts';
import { concurrentChange } from './versions.queries.ts';

/** api_version of a placed bet's rows: 1 and 2 are the upload endpoints, 3 is "placed here". */
export const PLACED_API_VERSION = 3;
/** client_id of a placed bet's rows: no operator client sent them; wagerline recorded them. */
export const PLACED_CLIENT_ID = 'wagerline';

export interface PlacedBetLeg {
  leg: number;
  meetingId: string;
  raceNumber: number;
  /** WIN, PLACE and each MULTI leg. */
  runnerNumber: number | null;
  /** Exotics, QUADDIE and DAILY_DOUBLE: the selection as an upload's exotics_selection. */
  exoticsSelection: string | null;
  /** Fixed odds: this leg's price. */
  price: string | null;
}

export interface PlacedBetReport {
  tenantId: string;
  /** The bet's UUID, reported as the bet's id. */
  betId: string;
  userId: string;
  /** WIN PLACE EXACTA QUINELLA TRIFECTA FIRST_FOUR MULTI QUADDIE DAILY_DOUBLE */
  kind: string;
  placedAt: Date;
  medium: string | null;
  bonus: boolean;
  status: 'Pending' | 'Unresulted' | 'Paid' | 'FullRefund' | 'PartialRefund' | 'Cancelled';
  resulted: boolean;
  /** The accepted stake in dollars, e.g. "12.50". */
  amount: string;
  /** Everything returned to the user (winnings with the stake, refunds, a cash out) once known. */
  payout: string | null;
  legs: PlacedBetLeg[];
}

const STATUS_SET: ReadonlySet<string> = new Set(STATUSES);

/** Why a report cannot be written, or undefined: a mistake of the caller, never of the user. */
function problem(r: PlacedBetReport): string | undefined {
  if (!Object.hasOwn(KIND_RULES, r.kind)) return `kind ${r.kind} is not a bet kind`;
  if (!STATUS_SET.has(r.status)) return `status ${r.status} is not a reporting status`;
  if (r.legs.length === 0) return 'it has no legs';
  if (new Set(r.legs.map((l) => l.leg)).size !== r.legs.length) return 'it names a leg twice';
  if (r.legs.some((l) => (l.runnerNumber === null) === (l.exoticsSelection === null))) {
    return 'each leg needs exactly one of runnerNumber and exoticsSelection';
  }
  return undefined;
}

/** The reports as rows of reported_bets, one per leg: the bet's fields repeat on every leg. */
export function placedColumns(reports: readonly PlacedBetReport[]): PlacedColumns {
  const c: PlacedColumns = {
    tenant_id: [], bet_id: [], leg: [], meeting_id: [], race_number: [], bet_time: [], bet_type: [], runner_number: [],
    exotics_selection: [], user_id: [], medium: [], resulted: [], status: [], bonus: [], amount: [], price: [], payout: [],
  };
  // A bet twice in one statement would be a second update of one row, which PostgreSQL refuses.
  const seen = new Set<string>();
  for (const r of reports) {
    const wrong = problem(r) ?? (seen.has(`${r.tenantId}/${r.betId}`) ? 'it is reported twice in one batch' : undefined);
    if (wrong) throw new Error(`placed bet ${r.betId} cannot be reported: ${wrong}`);
    seen.add(`${r.tenantId}/${r.betId}`);
    const type = KIND_RULES[r.kind as BetKind].uploadType;
    const time = r.placedAt.toISOString();
    for (const l of r.legs) {
      c.tenant_id.push(r.tenantId); c.bet_id.push(r.betId); c.leg.push(l.leg); c.meeting_id.push(l.meetingId);
      c.race_number.push(l.raceNumber); c.bet_time.push(time); c.bet_type.push(type); c.runner_number.push(l.runnerNumber);
      c.exotics_selection.push(l.exoticsSelection); c.user_id.push(r.userId); c.medium.push(r.medium);
      c.resulted.push(r.resulted); c.status.push(r.status); c.bonus.push(r.bonus); c.amount.push(r.amount);
      c.price.push(l.price); c.payout.push(r.payout);
    }
  }
  return c;
}

/**
 * Writes placed bets to the reporting store in ONE statement, inside the caller's transaction:
 * a new bet is created at revision 1; a bet whose report changed (settled, refunded…) is updated
 * to its next revision and the version it replaces is kept, exactly as an upload does; a report
 * identical to what is stored writes nothing. Callers serialise the reports of one bet (they hold
 * its row); should two race anyway, the 40001 thrown lets withTransaction run the caller again.
 */
export async function reportPlacedBets(tx: Queryable, reports: PlacedBetReport[], now: Date): Promise<void> {
  if (reports.length === 0) return;
  const columns = placedColumns(reports);
  const stored = await storePlacedBets(tx, columns, {
    writtenAt: now, source: PLACED_SOURCE, apiVersion: PLACED_API_VERSION, clientId: PLACED_CLIENT_ID,
  });
  if (stored.rows !== columns.bet_id.length) {
    throw new Error(`${columns.bet_id.length - stored.rows} placed bet rows name a tenant that does not exist`);
  }
  if (stored.revisions !== stored.updated) throw concurrentChange();
}
