// The back-office reads of bets (docs/backoffice.md), for the back-office GraphQL endpoint and any
// other operator view: pages of the bets of a set of tenants, and for a page at once its legs (with
// results), its wallet calls and its history — each a fixed number of statements, whatever the
// page size. Tenant access is the caller's to decide: these read whatever tenants they are given.
import type { Pool } from '../../db/pool.ts';
import { AppError } from '../../errors.ts';
import { raceKey } from '../../racing/results.ts';
import { isUuid } from '../../racing/values.ts';
import type { CatalogueService } from '../catalogue/catalogue.service.ts';
import type { WalletService } from '../wallet/wallet.service.ts';
import * as q from './backoffice.queries.ts';
import { backofficeBet, backofficeLegs, effectiveRow, historyEntry, type BackofficeBet, type BackofficeHistoryEntry, type BackofficeLeg, type WalletCallRecord } from './backoffice-view.ts';
import type { LegRow } from './betting.queries.ts';
import { legsOfKeys } from './settlement.queries.ts';

export type { BackofficeBet, BackofficeHistoryEntry, BackofficeLeg, BackofficeMetadata, WalletCallRecord } from './backoffice-view.ts';

export const DEFAULT_PAGE = 100;
export const MAX_PAGE = 1000;

export interface BackofficeReadsDeps {
  db: Pool;
  clock: () => Date;
  catalogue: Pick<CatalogueService, 'raceFacts' | 'meetingCodes'>;
  wallet: Pick<WalletService, 'callsOfBets'>;
  /** A bet pending for longer is shown as an interrupted placement (as the frontend shows it). */
  interruptedAfterMs: number;
}

export interface BetsQuery {
  tenantIds: string[];
  betIds?: string[] | null;
  lastId?: string | null;
  limit?: number | null;
}

export interface BetsPage {
  bets: BackofficeBet[];
  pagination: { last_id: string | null; count: number; has_more: boolean };
}

/**
 * What a page is read with besides the bets' records. Legs and history come in the page's own
 * statement, wallet calls in one statement after it (beside the legs' race facts): a page with
 * everything is two round trips.
 */
export interface BetParts {
  legs?: boolean;
  walletCalls?: boolean;
  history?: boolean;
}

type Key = { tenant_id: string; bet_id: string };
const keyOf = (k: Key) => `${k.tenant_id}:${k.bet_id}`;
const keys = (bets: BackofficeBet[]): Key[] => bets.map((b) => ({ tenant_id: b.row.tenant_id, bet_id: b.row.bet_id }));

function badInput(message: string): AppError {
  return new AppError('bad_request', message);
}

/** The query's ids and limit, checked: UUIDs, at most MAX_PAGE bet ids, a limit of 1 to MAX_PAGE. */
function checked(query: BetsQuery): q.PageQuery {
  const limit = query.limit ?? DEFAULT_PAGE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) throw badInput(`pagination.limit must be 1 to ${MAX_PAGE}, got ${limit}`);
  if (query.tenantIds.length === 0) throw badInput('tenant.ids must name at least one tenant');
  const lastId = query.lastId ?? null;
  // Each refusal names its field, so a back-office integrator sees which id of the input is wrong.
  const shown = (id: unknown) => JSON.stringify(String(id).slice(0, 40));
  const tenant = query.tenantIds.findIndex((id) => !isUuid(id));
  if (tenant >= 0) throw badInput(`tenant.ids[${tenant}] must be a tenant's UUID, got ${shown(query.tenantIds[tenant])}`);
  const bet = (query.betIds ?? []).findIndex((id) => !isUuid(id));
  if (bet >= 0) throw badInput(`tenant.bet_ids[${bet}] must be a bet's UUID, got ${shown(query.betIds![bet])}`);
  if (lastId !== null && !isUuid(lastId)) throw badInput(`pagination.last_id must be a bet's UUID (the last_id of the page before), got ${shown(lastId)}`);
  if ((query.betIds?.length ?? 0) > MAX_PAGE) throw badInput(`tenant.bet_ids may name at most ${MAX_PAGE} bets`);
  const lower = (ids: string[]) => [...new Set(ids.map((id) => id.toLowerCase()))];
  return { tenantIds: lower(query.tenantIds), betIds: query.betIds ? lower(query.betIds) : null, lastId: lastId?.toLowerCase() ?? null, limit };
}

export function createBackofficeReads(deps: BackofficeReadsDeps) {
  const { db } = deps;

  /** Legs as the back-office shows them, each bet's rows given (same order): two statements, race facts and meeting codes. */
  async function legsOf(bets: BackofficeBet[], rows: LegRow[][]): Promise<BackofficeLeg[][]> {
    const all = rows.flat();
    if (all.length === 0) return rows.map(() => []);
    const races = [...new Map(all.map((l) => [raceKey(l.meeting_id, l.race_number), { meetingId: l.meeting_id, raceNumber: l.race_number }])).values()];
    const [facts, codes] = await Promise.all([deps.catalogue.raceFacts(races), deps.catalogue.meetingCodes(all.map((l) => l.meeting_id))]);
    return bets.map((bet, i) => backofficeLegs(bet.row, rows[i]!, rows[i]!.map((l) => facts.get(raceKey(l.meeting_id, l.race_number))),
      rows[i]!.map((l) => codes.get(String(l.meeting_id))?.code)));
  }

  /** Every wallet call of each bet (same order), in sequence order with every attempt: one statement. */
  async function walletCalls(bets: BackofficeBet[]): Promise<WalletCallRecord[][]> {
    const calls = await deps.wallet.callsOfBets(keys(bets));
    return bets.map((bet) => (calls.get(keyOf(bet.row)) ?? []).map((c) => ({
      sequence: c.seq, operation: c.op, transaction_type: typeof c.transaction_type === 'string' ? c.transaction_type : null,
      amount: c.amount, transactionId: c.transaction_id, status: c.status, bonus: c.bonus_flag, created_at: c.created_at,
      finished_at: c.finished_at, next_attempt_at: c.next_attempt_at, last_http_status: c.last_http_status, last_error: c.last_error,
      note: c.note, attempts: c.attempt_log.map((a) => ({
        attempt: a.attempt, at: a.started_at, duration_ms: a.duration_ms, http_status: a.http_status, outcome: a.outcome, error: a.error,
      })),
    })));
  }

  return {
    /**
     * A page of the tenants' bets (only `betIds` among them when given), oldest first with the bet
     * id breaking ties, after the bet `lastId`, with the `parts` asked for. `has_more`: another
     * page follows.
     */
    async bets(query: BetsQuery, parts: BetParts = {}): Promise<BetsPage> {
      const page = checked(query);
      const rows = await q.betsPage(db, { ...page, limit: page.limit + 1, with: { legs: parts.legs, history: parts.history } });
      if (rows.length === 0 && page.lastId !== null && !(await q.cursorExists(db, page.tenantIds, page.lastId))) {
        throw badInput(`pagination.last_id ${page.lastId} is not a bet of the tenants asked for`);
      }
      const now = deps.clock();
      const bets = rows.slice(0, page.limit).map((row) => backofficeBet(effectiveRow(row, now, deps.interruptedAfterMs)));
      const [legs, calls] = await Promise.all([
        parts.legs ? legsOf(bets, bets.map((b) => b.row.legs!)) : undefined,
        parts.walletCalls ? walletCalls(bets) : undefined,
      ]);
      bets.forEach((bet, i) => {
        if (legs) bet.legs = legs[i];
        if (calls) bet.wallet_calls = calls[i];
        if (parts.history) bet.history = bet.row.history!.map(historyEntry);
      });
      return { bets, pagination: { last_id: bets.at(-1)?.id ?? null, count: bets.length, has_more: rows.length > page.limit } };
    },

    /** The legs of each bet (same order), with dividends, places paid and sport: three statements. */
    async legs(bets: BackofficeBet[]): Promise<BackofficeLeg[][]> {
      const legs = await legsOfKeys(db, keys(bets));
      return legsOf(bets, bets.map((bet) => legs.get(keyOf(bet.row)) ?? []));
    },

    walletCalls,

    /** The state changes of each bet (same order), oldest first, with time and cause: one statement. */
    async history(bets: BackofficeBet[]): Promise<BackofficeHistoryEntry[][]> {
      const byBet = new Map(bets.map((b) => [keyOf(b.row), [] as BackofficeHistoryEntry[]]));
      for (const h of await q.historyOfKeys(db, keys(bets))) byBet.get(keyOf(h))?.push(historyEntry(h));
      return bets.map((b) => byBet.get(keyOf(b.row))!);
    },
  };
}

export type BackofficeReads = ReturnType<typeof createBackofficeReads>;
