// The operator's admin API of placed bets (scope `admin`, docs/bets-admin.md): cancel, cash out,
// adjust, and the whole record of one bet. The same changes as `wagerline bet`. A client acts on
// its own tenant's bets only; the history records it as the author ("client:<client_id>").
import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { Type } from 'typebox';
import { problemResponses } from '../../http/problem.ts';
import { tenantInReach } from '../../http/tenant-reach.ts';
import type { BetActions, BetRef } from './bet-actions.ts';

const UUID = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const BetParams = Type.Object({
  tenant_id: Type.String({ pattern: UUID, description: 'The tenant, a UUID: the token\'s own (any tenant with scope platform)' }),
  bet_id: Type.String({ pattern: UUID, description: 'The bet, a UUID' }),
});
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const Money = Type.String({ description: 'Dollars, exact decimal text: "12.50"' });
// Amounts are never coerced: decimal text or a JSON number with at most two decimals, nothing else.
const Amount = Type.Union([Type.String({ maxLength: 20 }), Type.Number()], {
  description: 'Dollars above 0 and below 100,000,000,000 with at most two decimals: "12.50" or 12.5 (a number with more decimals is refused, never rounded)',
});
const Reason = Type.String({ maxLength: 500, description: 'Why, for the bet\'s history (at most 500 characters)' });

const Call = Type.Object({ op: Type.String(), amount: Money, transactionType: Type.Optional(Type.String()) });
const ActionResult = Type.Object({
  tenant_id: Type.String(), bet_id: Type.String(),
  status: Type.String({ description: 'The bet\'s status after the change' }), previous_status: Type.String(),
  changed: Type.Boolean({ description: 'false: nothing to do (a cancelled bet cancelled again)' }),
  payout: Money, refunded: Money, cash_out: Nullable(Money), adjusted: Money,
  calls: Type.Array(Call, { description: 'The wallet calls queued, in order (delivered by the wallet worker)' }),
});
const History = Type.Array(Type.Object({
  at: Type.String(), from: Nullable(Type.String()), to: Type.String(), cause: Type.String(), detail: Type.Unknown(),
}), { description: 'Every state of the bet, oldest first, with its cause and detail' });
const BetRecord = Type.Object({
  tenant_id: Type.String(), bet_id: Type.String(), user_id: Type.String(), ticket_id: Type.String(), kind: Type.String(),
  status: Type.String(), result: Nullable(Type.String({ description: 'won or lost, once settled' })),
  stake: Money, accepted_stake: Nullable(Money), combinations: Type.Integer(), fixed_odds: Nullable(Type.String()),
  percentage: Nullable(Type.String()), boxed: Type.Boolean(), bonus: Type.Boolean(), reason_code: Nullable(Type.String()),
  reason: Nullable(Type.String()), payout: Money, refunded: Money, partial_refund: Money, cash_out: Nullable(Money), adjusted: Money,
  cancel_reason: Nullable(Type.String()), created_at: Type.String(), settled_at: Nullable(Type.String()), updated_at: Type.String(),
  legs: Type.Array(Type.Object({
    leg: Type.Integer(), meeting_id: Type.Integer(), race_number: Type.Integer(), event_id: Type.String(), event_name: Type.String(),
    selections: Type.Array(Type.Array(Type.Integer())), price: Nullable(Type.String()), seen_price: Nullable(Type.String()),
    struck_at: Type.String({ description: 'when the price was agreed: a late scratching after it takes its deduction' }),
  })),
  wallet_calls: Type.Array(Type.Object({
    seq: Type.Integer(), call_id: Type.String(), op: Type.String(), amount: Money, transaction_type: Type.Optional(Type.String()),
    status: Type.String({ description: 'pending, sending, delivered, refused, failed, skipped or resolved' }), attempts: Type.Integer(),
    created_at: Type.String(), finished_at: Nullable(Type.String()), last_error: Nullable(Type.String()),
  })),
  history: History,
});

/** The bet named by the path, once the token is known to reach its tenant (http/tenant-reach.ts). */
function betOf(request: FastifyRequest): BetRef {
  const { bet_id } = request.params as { bet_id: string };
  return { tenantId: tenantInReach(request, "that tenant's bets"), betId: bet_id.toLowerCase() };
}

const actor = (request: FastifyRequest) => ({ by: `client:${request.principal!.clientId}` });

export function registerBetAdminRoutes(app: FastifyInstance, bets: BetActions): void {
  // Authenticate before the body is read: an anonymous caller learns nothing about the body rules.
  const onRequest = app.authenticate('admin') as unknown as onRequestAsyncHookHandler;
  const base = { tags: ['bets'], security: [{ bearer: [] }], params: BetParams };
  const bet = '/admin/tenants/:tenant_id/bets/:bet_id';
  const changed = { 200: ActionResult, ...problemResponses(400, 401, 403, 404, 409) };

  app.post(`${bet}/cancel`, {
    onRequest,
    // The reason is optional, so is the body: a bare POST cancels without one. So does a POST whose
    // client sets a JSON content type on every request and sends nothing (Fastify would refuse the
    // empty JSON): with no bytes to read, the content type is dropped before parsing.
    preParsing: async (request, _reply, payload) => {
      if (request.headers['content-length'] === '0' && request.headers['transfer-encoding'] === undefined) delete request.headers['content-type'];
      return payload;
    },
    preValidation: async (request) => {
      request.body ??= {};
    },
    schema: {
      ...base, summary: 'Cancel a bet: winnings paid are taken back (debit betwincancelled), then the stake returned (refundBet)',
      body: Type.Object({ reason: Type.Optional(Reason) }, { additionalProperties: false, description: 'Optional' }), response: changed,
    },
  }, async (request) => bets.cancelBet(betOf(request), { reason: (request.body as { reason?: string }).reason ?? null, ...actor(request) }));

  app.post(`${bet}/cash-out`, {
    onRequest,
    schema: {
      ...base, summary: 'Cash out an accepted fixed-odds bet not yet settled, for the amount quoted (credit cashout)',
      body: Type.Object({ amount: Amount }, { additionalProperties: false }), response: changed,
    },
  }, async (request) => bets.cashOut(betOf(request), (request.body as { amount: unknown }).amount, actor(request)));

  app.post(`${bet}/adjust`, {
    onRequest,
    schema: {
      ...base, summary: 'Credit the user of a taken bet by hand (credit adjustreversetransaction), with the reason',
      description: 'With an Idempotency-Key header the adjustment is made once: a repeat of the same amount and reason changes nothing '
        + '(changed: false), the key with another amount or reason is a 409 idempotency_conflict. Without one, every request is an adjustment.',
      headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Per bet' })) }),
      body: Type.Object({ amount: Amount, reason: Reason }, { additionalProperties: false }), response: changed,
    },
  }, async (request) => {
    const body = request.body as { amount: unknown; reason: unknown };
    return bets.adjust(betOf(request), body.amount, body.reason, { ...actor(request), key: request.headers['idempotency-key'] });
  });

  app.get(bet, {
    onRequest,
    schema: {
      ...base, summary: 'A bet\'s whole record: row, legs, wallet calls with their status, history',
      response: { 200: BetRecord, ...problemResponses(400, 401, 403, 404) },
    },
  }, async (request) => bets.show(betOf(request)));
}
