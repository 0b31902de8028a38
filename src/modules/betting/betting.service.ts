// Bet placement (docs/betting.md): checked against the catalogue → stored pending (with the
// reserve's outbox row) → the stake reserved on the operator's wallet → accepted by the tenant's
// limits (all, part or none) → in ONE transaction, the one that records the reserve's success, with
// the bet's outcome, confirm of the accepted amount or refundBet of the whole. A placement that
// dies after the reserve leaves the bet pending and the reserve leased to it; the wallet's rescue
// releases the reservation, and the bet reads as rejected (placement_interrupted) afterwards.
import { randomUUID } from 'node:crypto';
import type { Pool } from '../../db/pool.ts';
import { AppError } from '../../errors.ts';
import type { CursorCodec } from '../../http/cursor.ts';
import type { ReserveMetadata } from '../../wallet-protocol/operations.ts';
import { centsToDollars, parseDollars } from '../../racing/money.ts';
import type { IntakeService } from '../intake/intake.service.ts';
import type { TenantService } from '../tenants/tenants.service.ts';
import { TakeFailed, type OpenGroup, type TakeGroup, type WalletService } from '../wallet/wallet.service.ts';
import type { BetUpdate, BetUpdates } from './bet-updates.ts';
import { betView, type BetView } from './bet-view.ts';
import * as q from './betting.queries.ts';
import * as lq from './limits.queries.ts';
import { LOCK_NOT_AVAILABLE, takeBets, type TakeEntry, type TakeLimits, type Taken } from './take-bet.ts';
import { checkInput, dollars, oddsText, priceBet, requestHash, sharedRaceReads, type CatalogueReader, type PlaceBetInput, type Priced } from './placement.ts';
import { isUuid } from '../../racing/values.ts';
import { tenantCannotTakeBets } from '../tenants/time-zones.ts';

/** A signed-in frontend user, as user authentication hands it over. */
export interface BettingUser {
  tenantId: string;
  userId: string;
  token: string;
  metadata: ReserveMetadata;
  /**
   * Whether the database converts times in the tenant's zone, as user authentication read it with
   * the tenant (no read of its own per placement). False: no bet of the tenant can be taken.
   */
  tenantTimezoneUsable: boolean;
}

export interface Channel {
  ip?: string;
  medium?: string;
}

export interface BettingDeps {
  db: Pool;
  /** Signs myBets' page cursors (src/http/cursor.ts). */
  cursors: CursorCodec;
  catalogue: CatalogueReader;
  wallet: Pick<WalletService, 'reserve' | 'enqueue'>;
  /** Writes the bets taken to the reporting store, inside the transaction that takes them. */
  reporting: Pick<IntakeService, 'reportPlacedBets'>;
  tenants: Pick<TenantService, 'requireTenant'>;
  clock: () => Date;
  /** How long a bet may stay pending before it is read as interrupted (the placement guard's window and then some). */
  interruptedAfterMs: number;
  /** Bounds on taking a bet once the wallet reserved (docs/betting.md, "Placement"): see TakeLimits. */
  take: TakeLimits;
  /** Live changes of bets, from every process (myBetUpdates). */
  updates: Pick<BetUpdates, 'stream'>;
}

/** The key of a myBets cursor: [created_at ISO, bet id]. */
function betKey(items: unknown[]): { createdAt: string; betId: string } | undefined {
  const [createdAt, betId] = items;
  if (items.length !== 2 || typeof createdAt !== 'string' || Number.isNaN(Date.parse(createdAt)) || !isUuid(betId)) return undefined;
  return { createdAt, betId };
}

/** myBets' `after`, in the words of its own API (the codec's message names the REST listings' next_cursor). */
function decodeAfter(cursors: CursorCodec, after: string, scope: string): { createdAt: string; betId: string } {
  try {
    return cursors.decode(after, scope, betKey);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    throw new AppError('bad_request', 'after is not an endCursor of this user\'s myBets: pass the endCursor of the page before back unchanged');
  }
}

/**
 * The bet's races: only bets on the same races are taken together, so a race held by a change
 * (a scratching, a status change) delays only the bets on it.
 */
const lane = (input: PlaceBetInput) => [...new Set(input.legs.map((l) => `${l.meetingId}/${l.raceNumber}`))].sort().join(',');

/** The bet and its legs as placement stores them, pending, from the priced input. */
function newBet(user: BettingUser, input: PlaceBetInput, priced: Priced, channel: Channel, now: Date): { bet: q.NewBet; legs: q.LegRow[] } {
  const bet: q.NewBet = {
    tenant_id: user.tenantId, bet_id: randomUUID(), user_id: user.userId, ticket_id: randomUUID(),
    idempotency_key: input.idempotencyKey, request_hash: priced.requestHash, kind: priced.kind, stake: dollars(priced.stakeCents),
    combinations: priced.combinations, original_percentage: priced.percentage, original_odds: oddsText(priced.seenOdds),
    boxed: input.boxed === true, bonus: input.bonus === true, medium: channel.medium ?? 'internet', ip_address: channel.ip ?? null,
    created_at: now,
  };
  const legs: q.LegRow[] = input.legs.map((l, i) => {
    const race = priced.races[i]!;
    return {
      leg: i + 1, meeting_id: String(l.meetingId), race_number: l.raceNumber, event_id: race.event_id,
      event_name: `${race.meeting_name} R${race.race_number}`, meeting_name: race.meeting_name, event_time: new Date(race.start_time),
      selections: l.selections, seen_price: l.price === undefined || l.price === null ? null : String(l.price),
      price: priced.legPrices[i] ? oddsText(priced.legPrices[i]!) : null, struck_at: now,
    };
  });
  return { bet, legs };
}

/** A limit in dollars ("50", "2500.00"), null to remove it; undefined keeps the current one. */
export interface LimitsInput {
  maxStake?: string | null;
  maxPayout?: string | null;
  maxRunnerLiability?: string | null;
}

function limitValue(name: string, given: string | null | undefined, current: string | null | undefined): string | null {
  if (given === undefined) return current ?? null;
  if (given === null) return null;
  const cents = parseDollars(given);
  if (cents === undefined || cents <= 0n || cents >= 10n ** 16n) throw new AppError('bad_request', `${name} must be an amount in dollars above 0 and below 10^14 with at most two decimals (null removes the limit), got "${given.slice(0, 40)}"`);
  return centsToDollars(cents);
}

export function createBettingService(deps: BettingDeps) {
  const { db, clock } = deps;
  const takeDeps = { catalogue: deps.catalogue, reporting: deps.reporting, clock, limits: deps.take };
  const firstReads = sharedRaceReads(deps.catalogue);
  /** The take of every placement: one object, so that the wallet takes bets reserved together in one transaction. */
  const taking: TakeGroup<TakeEntry, Taken> = { take: (tx, entries, queueNext) => takeBets(takeDeps, tx, entries, queueNext) };
  /** The pending bets' writes, run in the statement that writes their reserves. */
  const opening: OpenGroup<TakeEntry> = { sql: (entries) => q.pendingBetsSql(entries.map((e) => ({ bet: e.bet, legs: e.stored }))) };

  /** The bet as its user sees it; `legs` when the caller holds them already (saves a read). */
  async function view(bet: q.BetRow, legs?: q.LegRow[]): Promise<BetView> {
    const current = await q.rejectInterrupted(db, bet, clock(), deps.interruptedAfterMs);
    return betView(current, legs ?? await q.legsOf(db, current.tenant_id, current.bet_id));
  }

  /** The same key again: the same bet when the body is the same (waiting while it is in flight). */
  async function replay(user: BettingUser, input: PlaceBetInput, hash: string): Promise<BetView | undefined> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const bet = await q.findBetByKey(db, user.tenantId, user.userId, input.idempotencyKey);
      if (!bet) return undefined;
      if (bet.request_hash !== hash) {
        throw new AppError('idempotency_conflict', `idempotencyKey "${input.idempotencyKey.slice(0, 40)}" was used for another bet; use a new key for a new bet`);
      }
      if (bet.status !== 'pending' || Date.now() > deadline) return view(bet);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Rejects a bet still pending; the bet as stored afterwards (undefined when it was never stored). */
  async function rejectPending(bet: Pick<q.BetRow, 'tenant_id' | 'bet_id'>, code: string, reason: string): Promise<q.BetRow | undefined> {
    const settled = await q.settlePlacement(db, bet.tenant_id, bet.bet_id, q.rejection(code, reason), clock(), code);
    return settled ?? q.findBet(db, bet.tenant_id, bet.bet_id);
  }

  async function placeBet(user: BettingUser, input: PlaceBetInput, channel: Channel = {}): Promise<BetView> {
    const { kind, stakeCents } = checkInput(input);
    // The take stores the bet's racing day and deadline in the tenant's zone: a new bet is refused
    // before the wallet holds a stake it would have to return (tenants/time-zones.ts); a bet taken
    // before is still answered to its replay, as it stands.
    if (!user.tenantTimezoneUsable) {
      const replayed = await replay(user, input, requestHash(input));
      if (replayed) return replayed;
      throw tenantCannotTakeBets();
    }
    let priced;
    try {
      priced = await priceBet(firstReads, input, kind, stakeCents);
    } catch (error) {
      // A replay is answered whatever the catalogue says now (the key is checked again at the insert).
      const replayed = await replay(user, input, requestHash(input));
      if (replayed) return replayed;
      throw error;
    }
    const { bet, legs } = newBet(user, input, priced, channel, clock());
    return (await reserveAndTake(user, input, priced, bet, legs)) ?? (await replay(user, input, priced.requestHash))!;
  }

  /**
   * The pending bet is stored by the statement that writes its reserve's row, and taken in the
   * transaction that records the reserve's success: two transactions a placement. Undefined when
   * the user's idempotency key was taken meanwhile (a concurrent request with the same key won).
   */
  async function reserveAndTake(user: BettingUser, input: PlaceBetInput, priced: Priced, bet: q.NewBet, legs: q.LegRow[]): Promise<BetView | undefined> {
    let reserved;
    try {
      const entry: TakeEntry = { bet, stored: legs, input, first: priced };
      reserved = await deps.wallet.reserve({
        tenantId: user.tenantId, betId: bet.bet_id, userId: user.userId, amount: bet.stake, bonusFlag: bet.bonus,
        token: user.token, metadata: user.metadata,
      }, {
        open: { group: opening, context: entry },
        take: { group: taking, context: entry, lane: lane(input) },
        lockTimeoutMs: deps.take.lockTimeoutMs,
      });
    } catch (error) {
      if (error instanceof TakeFailed) return notTaken(bet, legs, error);
      // Nothing reached the wallet (no configuration, or one that cannot be opened): not taken.
      const reason = error instanceof AppError ? error.message : 'the operator wallet could not be called';
      const rejected = await rejectPending(bet, error instanceof AppError ? error.code : 'wallet_unavailable', reason);
      if (!rejected) throw error; // the bet itself was never stored
      return view(rejected, legs);
    }
    switch (reserved.outcome) {
      case 'not_opened':
        return undefined;
      case 'rejected':
        // Never reached (no connection, no token): the transport's error is the operator's to read
        // in the call's attempts, not the user's.
        if (reserved.httpStatus === null) {
          return view((await rejectPending(bet, 'wallet_unavailable', 'the wallet could not be reached; nothing was reserved'))!, legs);
        }
        return view((await rejectPending(bet, 'wallet_refused',
          reserved.message ?? `the wallet refused the stake${reserved.code ? ` (${reserved.code})` : ''}`))!, legs);
      case 'unknown':
        return view((await rejectPending(bet, 'wallet_unavailable', 'the reservation got no certain answer from the wallet; any stake it holds will be released'))!, legs);
      case 'reserved':
        return view(reserved.taken!.bet, reserved.taken!.legs); // taken in the transaction that recorded the reserve
    }
  }

  /**
   * The wallet reserved but the transaction taking the bet failed; the wallet returns the stake
   * (TakeFailed). A bet no longer pending is answered as it stands: read as interrupted meanwhile,
   * or taken after all (a commit whose answer was lost). A lock waited for too long answers with
   * the bet rejected `race_busy`. Any other failure rejects the bet and is thrown on.
   */
  async function notTaken(bet: q.NewBet, legs: q.LegRow[], failed: TakeFailed): Promise<BetView> {
    const stored = await q.findBet(db, bet.tenant_id, bet.bet_id);
    if (stored && stored.status !== 'pending') return view(stored);
    if ((failed.cause as { code?: string }).code === LOCK_NOT_AVAILABLE) {
      const reason = 'a race or runner of the bet stayed locked by other changes; the stake is returned, place the bet again with a new idempotencyKey';
      return view((await rejectPending(bet, 'race_busy', reason))!, legs);
    }
    await rejectPending(bet, 'placement_failed', 'the bet could not be taken; the stake is returned').catch(() => undefined);
    throw failed.cause;
  }

  return {
    placeBet,

    /** Sets the tenant's acceptance limits; a limit not given is kept, `null` removes it. */
    async setLimits(tenantId: string, input: LimitsInput) {
      // The stored id (lower case) from here on: it is what the answer echoes.
      tenantId = (await deps.tenants.requireTenant(tenantId)).tenant_id;
      const current = await lq.findLimits(db, tenantId);
      const next: lq.LimitsRow = {
        max_stake: limitValue('max_stake', input.maxStake, current?.max_stake),
        max_payout: limitValue('max_payout', input.maxPayout, current?.max_payout),
        max_runner_liability: limitValue('max_runner_liability', input.maxRunnerLiability, current?.max_runner_liability),
      };
      const row = await lq.upsertLimits(db, tenantId, next, clock());
      return { tenant_id: tenantId, ...row, updated_at: row.updated_at.toISOString() };
    },

    /** The tenant's acceptance limits as set-limits prints them, or null when none were ever set. */
    async getLimits(tenantId: string) {
      await deps.tenants.requireTenant(tenantId);
      const row = await lq.findLimitsWithTime(db, tenantId);
      return row ? { tenant_id: tenantId, ...row, updated_at: row.updated_at.toISOString() } : null;
    },

    async getBet(user: Pick<BettingUser, 'tenantId' | 'userId'>, betId: string): Promise<BetView | null> {
      const bet = isUuid(betId) ? await q.findBet(db, user.tenantId, betId) : undefined;
      return bet && bet.user_id === user.userId ? view(bet) : null;
    },

    /** The changes of the user's own bets from now on, from every process (the myBetUpdated subscription). */
    myBetUpdates(user: Pick<BettingUser, 'tenantId' | 'userId'>): Promise<AsyncIterableIterator<BetUpdate>> {
      return deps.updates.stream((u) => u.tenant_id === user.tenantId && u.user_id === user.userId);
    },

    /** A page of the user's bets, newest first; `after` is the endCursor of the page before. */
    async myBets(user: Pick<BettingUser, 'tenantId' | 'userId'>, first: number, after: string | null) {
      const scope = `my-bets:${user.tenantId}:${user.userId}`;
      const from = after === null ? null : decodeAfter(deps.cursors, after, scope);
      const rows = await q.betsOfUser(db, user.tenantId, user.userId, from, first + 1);
      const page = rows.slice(0, first);
      const last = page[page.length - 1];
      const legs = await q.legsOfBets(db, user.tenantId, page.map((bet) => bet.bet_id));
      return {
        bets: await Promise.all(page.map((bet) => view(bet, legs.get(bet.bet_id)))),
        hasMore: rows.length > first,
        endCursor: last ? deps.cursors.encode(scope, [last.created_at.toISOString(), last.bet_id]) : null,
      };
    },
  };
}

export type BettingService = ReturnType<typeof createBettingService>;
