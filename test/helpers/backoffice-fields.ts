// Every field of a back-office Bet (docs/backoffice-schema.md), as one selection set: the tests and the
// benchmark that ask for the whole record use this one list.
export const BET_FIELDS = `id created_at
  metadata { created_at tenant_id user_id account_id account_type ticket_id fixed_odds original_odds amount original_amount percentage
    original_percentage is_partial status source medium bet_limit_id reason reason_id message action_id liability_percentage liability
    is_fixed is_flexi is_boxed bet_type teller_id is_cashout is_livebet ip_address result payout refunded cash_out adjusted settled_at }
  legs { leg_number bet_type dividend event_id event_name event_time leg_type meeting_id meeting_name postions_paid positions_paid
    product_keyword sport_id sport_name race_number selections price }
  wallet_calls { sequence operation transaction_type amount transactionId status bonus created_at finished_at next_attempt_at
    last_http_status last_error note attempts { attempt at duration_ms http_status outcome error } }
  history { seq at from to cause detail }`;
