// Where `npm run bench:settlement`'s settling time went, per batch of 1,000 bets: the statements
// timed by kind (bench/measure.ts, timeStatements) grouped into the phases of a batch, and planning
// measured alone in memory.
import type { Pool } from '../src/db/pool.ts';
import { planSettlement } from '../src/modules/betting/settle-plan.ts';
import * as sq from '../src/modules/betting/settlement.queries.ts';
import { callOf } from '../src/modules/betting/settlement.service.ts';
import type { Services } from '../src/services.ts';
import { fmt, round, type Timed } from './measure.ts';

export const log = (line: string) => process.stderr.write(`${line}\n`);

/** The kind of an unnamed statement of settlement's (statements are named by their own name). */
export function statementKind(text: string): string | undefined {
  if (/^(BEGIN|COMMIT|ROLLBACK)/.test(text)) return 'begin/commit';
  if (text.includes('FROM settlement_jobs WHERE job_id = $1 FOR UPDATE')) return 'job lock';
  if (text.startsWith('UPDATE settlement_jobs')) return 'job advance';
  if (text.includes("FROM settlement_jobs WHERE status = 'pending'")) return 'pending jobs';
  if (text.includes('FROM k CROSS JOIN LATERAL')) return 'enqueue: check';
  if (text.includes('INSERT INTO wallet_bet_sequences')) return 'enqueue: call row';
  return undefined;
}

/** The kinds a phase of a batch accounts for; any other statement is the result's recording. */
const IN_BATCH = new Set(['settlement_race_page', 'settlement_lock_bets', 'settlement_legs', 'catalogue_race_facts', 'enqueue: check',
  'enqueue: call row', 'settlement_apply', 'reporting_store_placed_bets', 'job lock', 'job advance', 'begin/commit', 'pending jobs']);

/** A phase of a batch: its name, its milliseconds over the whole run, and what it is made of. */
type Phase = [string, number, string];

export interface Breakdown {
  phases: Phase[];
  /** Statements per 1,000 bets. */
  perBatch: number;
  /** Seconds spent waiting on statements. */
  inSql: number;
}

/**
 * The phases of a batch from the times recorded while settling (`settleS` seconds for `bets` bets):
 * statements as the client waits for them, the enqueue and facts calls whole; planning is what is
 * left (and is measured alone by planAlone).
 */
function batchPhases(stats: Map<string, Timed>, settleS: number, bets: number) {
  const stat = (kind: string) => stats.get(kind) ?? { n: 0, ms: 0 };
  const thousands = bets / 1000;
  const phases: Phase[] = [
    ['page + lock', stat('settlement_race_page').ms + stat('settlement_lock_bets').ms, 'settlement_race_page, settlement_lock_bets'],
    ['legs + race facts', stat('settlement_legs').ms + stat('call: catalogue.raceFacts').ms, 'settlement_legs, catalogue_race_facts'],
    ['enqueue', stat('call: wallet.enqueueMany').ms,
      `${fmt(round(stat('call: wallet.enqueueMany').n / thousands, 1))} wallet.enqueueMany: check (bets, placement guards) ${round(stat('enqueue: check').ms / thousands, 1)} ms + ` +
      `write (guards released, sequences, call rows) ${round(stat('enqueue: call row').ms / thousands, 1)} ms waiting on PostgreSQL, the rest JavaScript`],
    ['apply', stat('settlement_apply').ms, 'settlement_apply'],
    ['report', stat('reporting_store_placed_bets').ms, 'reporting_store_placed_bets: the new states in the reporting store'],
    ['job + transaction', stat('job lock').ms + stat('job advance').ms + stat('begin/commit').ms + stat('pending jobs').ms, 'job lock, job advance, BEGIN/COMMIT, pending jobs'],
  ];
  const sqlKinds = [...stats].filter(([kind]) => !kind.startsWith('call: '));
  const outside = sqlKinds.filter(([kind]) => !IN_BATCH.has(kind)).reduce((sum, [, s]) => sum + s.ms, 0); // recording the result
  const accounted = phases.reduce((sum, [, ms]) => sum + ms, 0) + outside;
  phases.splice(2, 0, ['plan (the rest: JavaScript)', settleS * 1000 - accounted, 'planSettlement, wallet calls, history details']);
  return { phases, sqlKinds, outside };
}

/** Prints the per-batch breakdown of settling and every statement kind; returns the figures it quotes. */
export function reportBreakdown(stats: Map<string, Timed>, settleS: number, bets: number, batches: number): Breakdown {
  const { phases, sqlKinds, outside } = batchPhases(stats, settleS, bets);
  const thousands = bets / 1000;
  const perBatch = sqlKinds.reduce((sum, [, s]) => sum + s.n, 0) / thousands;
  const inSql = sqlKinds.reduce((sum, [, s]) => sum + s.ms, 0);
  log(`settling per 1,000 bets (one batch; ${batches} batches in all): ${round((settleS * 1000 - outside) / thousands, 1)} ms, ${fmt(Math.round(perBatch))} statements; ` +
    `${round(inSql / 1000)} s of ${round(settleS)} s waiting on statements`);
  for (const [phase, ms, what] of phases) log(`  ${phase.padEnd(28)} ${String(round(ms / thousands, 1)).padStart(8)} ms  (${what})`);
  log(`  recording the result: ${round(outside, 1)} ms once. Statements:`);
  for (const [kind, s] of sqlKinds.sort((a, b) => b[1].ms - a[1].ms)) {
    log(`    ${kind.padEnd(40)} ${String(s.n).padStart(8)} × ${round(s.ms / s.n, 3)} ms = ${round(s.ms / 1000)} s`);
  }
  return { phases, perBatch, inSql };
}

/** A race of the benchmark's meeting: the one settled, and the other race of its multis (resulted first). */
export interface BenchRace { meetingId: number; raceNumber: number; otherRaceNumber: number }

/**
 * CPU per bet of planSettlement and the calls of every bet of the race, in memory, best of 3: the
 * JavaScript share of a batch, without the event loop's waits.
 */
export async function planAlone(pool: Pool, services: Services, race: BenchRace): Promise<{ us: number }> {
  const { rows: keys } = await pool.query<sq.BetKey>('SELECT DISTINCT tenant_id, bet_id FROM bet_legs WHERE meeting_id = $1 AND race_number = $2',
    [race.meetingId, race.raceNumber]);
  const client = await pool.connect();
  try {
    const bets = (await sq.lockTakenBets(client, keys)).map((b) => ({ ...b, status: 'accepted' as const, payout: '0.00', settled_at: null, result: null }));
    const legs = await sq.legsOfKeys(client, bets);
    const facts = await services.catalogue.raceFacts([race.otherRaceNumber, race.raceNumber].map((raceNumber) => ({ meetingId: race.meetingId, raceNumber })), client);
    const now = new Date();
    let best = Infinity;
    for (let attempt = 0; attempt < 3; attempt++) {
      const cpu = process.cpuUsage();
      let calls = 0;
      for (const bet of bets) {
        const plan = planSettlement(bet, legs.get(`${bet.tenant_id}:${bet.bet_id}`) ?? [], facts, now);
        calls += plan.moves.map((m) => callOf(bet, m)).length;
        JSON.stringify(plan.change?.detail); // as applyChanges sends it
      }
      const used = process.cpuUsage(cpu);
      if (calls !== bets.length) throw new Error(`planning alone gave ${calls} calls for ${bets.length} bets`);
      best = Math.min(best, (used.user + used.system) / bets.length);
    }
    return { us: best };
  } finally {
    client.release();
  }
}
