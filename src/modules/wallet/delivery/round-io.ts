// A call's round at its two ends, for the delivery worker (worker.ts): the request sent for an
// outbox row, and the statements that record a batch of rounds' outcomes (batched-writes.ts).
import type { SecretBox } from '../../../crypto/secret-box.ts';
import type { Queryable } from '../../../db/pool.ts';
import { buildBody, type Operation } from '../../../wallet-protocol/operations.ts';
import type { Attempt } from './http-client.ts';
import * as oq from '../outbox/outbox.queries.ts';
import { notSendable, type RoundOutcome } from './outcome.ts';
import { deliverRequeuedReserve } from '../outbox/placement.queries.ts';
import { openReserveToken } from './reserve-token.ts';

/** A call's round, and for a call sent at commit (direct-send.ts) the tenant's claims counted when it was leased. */
export type Done = RoundOutcome & { row: oq.CallRow; claimsBefore?: number };

/**
 * The call's request, or the attempt that records why it cannot be sent: its user token sealed
 * under another WAGERLINE_SECRET_KEY, or not this row's own (reserve-token.ts). Such a call is
 * parked for an operator (outcome.ts) rather than failing here again after every lease, for ever.
 */
export function requestOf(box: SecretBox, now: () => Date, row: oq.CallRow): string | Attempt {
  let token: string | undefined;
  try {
    token = row.secret_enc ? openReserveToken(box, { ...row, secret_enc: row.secret_enc }) : undefined;
  } catch {
    return notSendable(now(), 'the user\'s token cannot be opened with this WAGERLINE_SECRET_KEY for this call '
      + '(it was sealed under another key, or for another call, bet, user or tenant)');
  }
  return buildBody({
    op: row.op as Operation, transactionId: row.transaction_id, betId: row.bet_id, userId: row.user_id, bonusFlag: row.bonus_flag,
    amount: row.amount, extra: row.extra, ...(token !== undefined && { token }),
  }, row.amount_unit);
}

/** Writes one batch of outcomes: the calls moved ("tenant/transaction"), each with whether a later call of its bet waits. */
export async function writeRounds(q: Queryable, done: Done[], now: () => Date): Promise<Map<string, boolean>> {
  const rows = await oq.complete(q, done.map((d) => d.result), done.flatMap((d) => d.attempts));
  const moved = new Map(rows.map((m) => [`${m.tenant_id}/${m.transaction_id}`, m.next_waiting === true]));
  for (const d of done) {
    const key = `${d.row.tenant_id}/${d.row.transaction_id}`;
    if (d.refused && d.row.op === 'reserve' && moved.has(key)) {
      await oq.skipConditionalCalls(q, d.row.tenant_id, d.row.bet_id, d.row.seq, now());
    }
    // A success heard after the lease ran out: a reserve the rescue requeued, with a refund behind
    // it, and not asked again yet gets it, so the refund goes out (as placement does, reserve.ts).
    if (d.row.op === 'reserve' && d.result.status === 'delivered' && !moved.has(key)) {
      await deliverRequeuedReserve(q, { ...d.result, attempts: d.attempts.length }); // it adds this round's asks to the row's count
    }
  }
  return moved;
}
