// Settlement (docs/settlement-running.md): results, abandonments and scratchings queue their race in the
// transaction that records them; the race's bets are then settled in batches, each batch ONE
// transaction that locks its bets, writes their new states and queues their wallet calls through
// the outbox, and moves the job's cursor. A process that dies mid-way leaves the job at its last
// batch; any process (serve's worker, the next CLI command) resumes it, and a bet settled twice
// is owed nothing the second time. Cancellation, cash out and adjustments change one bet, under
// the same row lock.
import { connectionLost, withTransaction, type Pool, type Queryable } from '../../db/pool.ts';
import { failureChanges, type EventLog } from '../../log.ts';
import type { Move } from '../../racing/bet-ledger.ts';
import { KIND_RULES, type BetKind } from '../../racing/bet-kinds.ts';
import { raceKey } from '../../racing/results.ts';
import type { RaceFacts } from '../../racing/settle.ts';
import type { CatalogueService, RaceChange } from '../catalogue/catalogue.service.ts';
import type { ResultInput } from '../catalogue/results.ts';
import type { IntakeService } from '../intake/intake.service.ts';
import type { WalletCallInput, WalletService } from '../wallet/wallet.service.ts';
import type { BetRow, LegRow } from './betting.queries.ts';
import { placedBetReport, reportedOutcome } from './placed-report.ts';
import { planSettlement, type Plan } from './settle-plan.ts';
import * as sq from './settlement.queries.ts';

export interface SettlementDeps {
  db: Pool;
  clock: () => Date;
  catalogue: Pick<CatalogueService, 'raceFacts' | 'recordResult'>;
  wallet: Pick<WalletService, 'enqueueMany' | 'refreshOutboxStatistics'>;
  /** Writes settled bets to the reporting store, in the transaction that settles them. */
  reporting: Pick<IntakeService, 'reportPlacedBets'>;
  /** Bets per batch transaction. */
  batchSize?: number;
  log?: EventLog;
}

/** A settlement that queued this many calls refreshes the outbox's statistics before delivery. */
const REFRESH_AFTER_CALLS = 1000;

export interface SettlementSummary {
  jobs: number;
  bets_seen: number;
  bets_changed: number;
  calls_queued: number;
  problems: string[];
}

/** The catalogue's hook: queues the race for settlement in the transaction that changed it. */
export async function queueRaceSettlement(tx: Queryable, change: RaceChange, now: Date): Promise<void> {
  await sq.insertJob(tx, change.meetingId, change.raceNumber, change.cause, now);
}

/**
 * The catalogue's other hook: the race products that bets still to settle on these races need
 * (a win bet and a multi's leg need win, an exacta exacta…; a quaddie's or daily double's pool is
 * no race product), keyed "meeting/race". An import may not take them away: a result could no
 * longer give those bets their dividend.
 */
export async function productsInPlay(tx: Queryable, races: Array<{ meetingId: number; raceNumber: number }>): Promise<Map<string, string[]>> {
  const kinds = await sq.kindsInPlay(tx, races);
  return new Map([...kinds].map(([race, list]) => [race, [...new Set(list.map((k) => KIND_RULES[k as BetKind])
    .filter((rule) => rule.legs === 1 || rule.legs === 'many').map((rule) => rule.product))]]));
}

/**
 * The catalogue's third hook: the pools (product and races) of quaddies and daily doubles still to
 * settle whose last race is one of `races`. An import may not give a pool of that product another
 * set of races ending there: the two would read the same dividends (docs/catalogue.md).
 */
export async function poolsInPlay(tx: Queryable, races: Array<{ meetingId: number; raceNumber: number }>) {
  return (await sq.multiRaceBetsEndingOn(tx, races))
    .map((r) => ({ meetingId: Number(r.meeting_id), product: KIND_RULES[r.kind as BetKind].product, races: r.races }));
}

/** The wallet call of a move, for the bet it belongs to. */
export function callOf(bet: BetRow, move: Move): WalletCallInput {
  return {
    tenantId: bet.tenant_id, betId: bet.bet_id, userId: bet.user_id, op: move.op, amount: move.amountCents, bonusFlag: bet.bonus,
    ...('transactionType' in move && { transactionType: move.transactionType }),
  };
}

/** Queues the calls in a fixed number of statements, in order per bet (the outbox delivers them so). */
export async function queueCalls(wallet: Pick<WalletService, 'enqueueMany'>, tx: Queryable, calls: WalletCallInput[]): Promise<void> {
  if (calls.length) await wallet.enqueueMany(tx, calls);
}

/** Reports the bets whose status changed, with their new status and payout, in `tx`. */
export async function reportChanges(reporting: Pick<IntakeService, 'reportPlacedBets'>, tx: Queryable, changed: Array<[BetRow, LegRow[], sq.BetChange]>, now: Date): Promise<void> {
  const reports = changed.flatMap(([bet, legs, change]) => {
    const outcome = change.from === change.to && change.to !== 'settled' ? undefined : reportedOutcome(change);
    // resulted: a final result decided the bet (not a scratching, an abandonment or a cash out before it).
    return outcome ? [placedBetReport(bet, legs, outcome.status, outcome.payout, change.result !== null)] : [];
  });
  if (reports.length) await reporting.reportPlacedBets(tx, reports, now);
}

export function createSettlementService(deps: SettlementDeps) {
  const { db, clock } = deps;
  const batchSize = deps.batchSize ?? 1000;

  async function factsFor(tx: Queryable, legs: Map<string, Array<{ meeting_id: string; race_number: number }>>): Promise<Map<string, RaceFacts>> {
    const races = new Map<string, { meetingId: string; raceNumber: number }>();
    for (const list of legs.values()) for (const l of list) races.set(raceKey(l.meeting_id, l.race_number), { meetingId: l.meeting_id, raceNumber: l.race_number });
    return deps.catalogue.raceFacts([...races.values()], tx);
  }

  /** One batch of a job, in one transaction; true when the job is finished. */
  async function runBatch(jobId: string, summary: SettlementSummary): Promise<boolean> {
    return withTransaction(db, async (tx) => {
      const job = await sq.lockJob(tx, jobId);
      if (!job || job.status !== 'pending') return true;
      const keys = await sq.racePage(tx, job, batchSize);
      const bets = keys.length ? await sq.lockTakenBets(tx, keys) : [];
      const legs = await sq.legsOfKeys(tx, bets);
      const facts = await factsFor(tx, legs);
      const now = clock();
      const plans: Array<[BetRow, Plan]> = bets.map((bet) => [bet, planSettlement(bet, legs.get(`${bet.tenant_id}:${bet.bet_id}`) ?? [], facts, now)]);
      const calls = plans.flatMap(([bet, plan]) => plan.moves.map((m) => callOf(bet, m)));
      await queueCalls(deps.wallet, tx, calls);
      const changes = plans.flatMap(([, plan]) => (plan.change ? [plan.change] : []));
      await sq.applyChanges(tx, changes, now);
      await reportChanges(deps.reporting, tx, plans.flatMap(([bet, plan]) => (plan.change ? [[bet, legs.get(`${bet.tenant_id}:${bet.bet_id}`) ?? [], plan.change] as [BetRow, LegRow[], sq.BetChange]] : [])), now);
      const problems = plans.flatMap(([bet, plan]) => (plan.problem ? [`bet ${bet.bet_id}: ${plan.problem}`] : []));
      const done = keys.length < batchSize;
      await sq.advanceJob(tx, jobId, keys[keys.length - 1] ?? null, { seen: bets.length, changed: changes.length, calls: calls.length, problem: problems[0] ?? null }, done ? now : null);
      summary.bets_seen += bets.length;
      summary.bets_changed += changes.length;
      summary.calls_queued += calls.length;
      summary.problems.push(...problems.slice(0, 20 - summary.problems.length));
      return done;
    });
  }

  /** Runs a job's batches until it is done, or until `stopped` (the job stays queued at its last batch). */
  async function runJob(jobId: string, summary: SettlementSummary, stopped: () => boolean): Promise<void> {
    for (;;) {
      if (await runBatch(jobId, summary)) break;
      if (stopped()) return;
    }
    summary.jobs += 1;
  }

  /**
   * Settles every queued race, oldest first, until none is left. A race whose settlement fails
   * does not hold up the others: it stays queued at its last batch, and the failure is thrown once
   * the rest are settled (the worker tries again at its next poll; it logs every such failure, and
   * of a database outage the first failed round and the round that succeeds after them).
   */
  async function runPending(stopped: () => boolean = () => false): Promise<SettlementSummary> {
    const summary: SettlementSummary = { jobs: 0, bets_seen: 0, bets_changed: 0, calls_queued: 0, problems: [] };
    const failed = new Map<string, unknown>();
    const next = () => sq.pendingJobs(db, [...failed.keys()]);
    for (let jobs = await next(); jobs.length && !stopped(); jobs = await next()) {
      for (const jobId of jobs) {
        if (stopped()) break;
        await runJob(jobId, summary, stopped).catch((error: unknown) => failed.set(jobId, error));
      }
    }
    if (summary.calls_queued >= REFRESH_AFTER_CALLS) await deps.wallet.refreshOutboxStatistics();
    if (failed.size) {
      throw new Error(`settlement of ${failed.size} queued race(s) failed (jobs ${[...failed.keys()].join(', ')}): ${String([...failed.values()][0])}`);
    }
    return summary;
  }

  return {
    runPending: () => runPending(),

    /** Records a race's result (docs/settlement-running.md) and, when final, settles its bets now. */
    async resultRace(meetingId: number, raceNumber: number, input: ResultInput) {
      const result = await deps.catalogue.recordResult(meetingId, raceNumber, input);
      const settlement = result.status === 'final' && result.changed ? await runPending() : null;
      return { ...result, settlement };
    },

    /** Settles queued races in the background every `pollMs` until stopped (serve). */
    startWorker(options: { pollMs?: number } = {}) {
      let running = true;
      let wake: (() => void) | undefined;
      // While the database is away every round fails alike: its first failure and the recovery are logged.
      const log: EventLog = (message, fields, level) => deps.log?.(message, { module: 'settlement', ...fields }, level);
      // A race that fails for another reason may fail every round, and another race after it: those are
      // all logged, so that a bet left unsettled is never silent.
      const rounds = failureChanges(log, { failed: 'settlement failed; retrying', recovered: 'settlement works again' },
        { outage: (error) => connectionLost(error) !== undefined });
      // stop() ends it between two batches: serve's shutdown waits for one transaction, not for
      // a backlog of races (what is left stays queued; the next process resumes it).
      const loop = (async () => {
        while (running) {
          await runPending(() => !running).then(() => rounds.succeeded(), (error: unknown) => rounds.failed(error));
          if (!running) break; // a stop() meanwhile found no wake-up to call
          await new Promise<void>((resolve) => {
            wake = resolve;
            setTimeout(resolve, options.pollMs ?? 1000).unref();
          });
        }
      })();
      return {
        async stop() {
          running = false;
          wake?.();
          await loop;
        },
      };
    },
  };
}

export type SettlementService = ReturnType<typeof createSettlementService>;
