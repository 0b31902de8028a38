// The answers of the wallet-call routes of the admin API, for the OpenAPI document: the JSON of
// `wagerline wallet calls | failed | retry | resolve` (controls.service.ts), sent as the service
// returns it (http/problem.ts documentedAnswer).
import { Type, type TSchema } from 'typebox';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Time = Type.String({ description: 'ISO 8601, UTC' });

const call = {
  call_id: Type.String({ description: 'The call\'s id: its transactionId, a UUID' }),
  transaction_id: Type.String(),
  tenant_id: Type.String(),
  bet_id: Type.String(),
  seq: Type.Integer({ description: 'Its place among the bet\'s calls, sent in this order' }),
  op: Type.String({ description: 'reserve, confirm, refundBet, settleBet, debit or credit' }),
  user_id: Type.String(),
  amount: Type.String({ description: 'Dollars, exact decimal text' }),
  bonus_flag: Type.Boolean(),
  transaction_type: Type.Optional(Type.String({ description: 'debit and credit only' })),
  status: Type.String({ description: 'pending, sending, delivered, refused, failed (parked), skipped or resolved' }),
  attempts: Type.Integer(),
  failures: Type.Integer(),
  next_attempt_at: Nullable(Type.String({ description: 'When a pending call is sent next' })),
  created_at: Time,
  finished_at: Nullable(Time),
  last_http_status: Nullable(Type.Integer()),
  last_code: Nullable(Type.String({ description: 'The wallet\'s error code, last attempt' })),
  last_error: Nullable(Type.String()),
  note: Nullable(Type.String()),
};
/** One call (retry, resolve: the call as it is now). */
export const WalletCall = Type.Object(call);

const Attempt = Type.Object({
  attempt: Type.Integer(),
  started_at: Time,
  duration_ms: Type.Integer(),
  http_status: Nullable(Type.Integer()),
  outcome: Type.String(),
  response_body: Nullable(Type.String({ description: 'The wallet\'s answer, clipped' })),
  error: Nullable(Type.String()),
});
export const CallsOfBet = Type.Object({
  bet_id: Type.String(),
  calls: Type.Array(Type.Object({
    ...call,
    held_by: Nullable(Type.String({ description: 'The open call of the bet this pending one waits for' })),
    attempt_log: Type.Array(Attempt),
  }), { description: 'In sequence order' }),
});

const Held = Type.Object({
  call_id: Type.String(), seq: Type.Integer(), op: Type.String(), amount: Type.String(), transaction_type: Type.Optional(Type.String()),
});
export const FailedCalls = Type.Object({
  count: Type.Integer({ description: 'Every parked call' }),
  calls: Type.Array(Type.Object({ ...call, held_calls: Type.Array(Held, { description: 'Later calls of its bet it holds' }) }), {
    description: 'The 1,000 parked longest',
  }),
});
