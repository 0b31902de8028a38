-- Up Migration
-- Bets placed by tenants' users (docs/betting.md): the bet, its legs, every change of its status
-- with time and cause, the tenants' acceptance limits and the book's liability per runner. A bet
-- holds what the back-office record needs (ticket, odds and original odds, amount and original
-- amount, percentage and original percentage, flags, channel), so later features only read it.

CREATE TABLE bets (
  tenant_id           uuid NOT NULL,
  bet_id              uuid NOT NULL,
  user_id             uuid NOT NULL,
  ticket_id           uuid NOT NULL,
  idempotency_key     text NOT NULL,                 -- the frontend's key: one bet per (tenant, user, key)
  request_hash        text NOT NULL,                 -- sha256 of the canonical request: a replay must match it
  kind                text NOT NULL,                 -- WIN, PLACE, EXACTA, ... (docs/betting.md)
  status              text NOT NULL CHECK (status IN ('pending', 'accepted', 'partially_accepted', 'rejected')),
  stake               numeric(16,2) NOT NULL CHECK (stake > 0),   -- the outlay asked for (original_amount)
  accepted_stake      numeric(16,2) CHECK (accepted_stake >= 0),  -- the outlay taken (amount)
  combinations        integer NOT NULL CHECK (combinations >= 1),
  original_percentage numeric(14,4),                 -- tote: stake ÷ combinations × 100
  percentage          numeric(14,4),                 -- tote: accepted stake ÷ combinations × 100
  original_odds       numeric,                       -- fixed odds: the price the user saw (product for a multi)
  fixed_odds          numeric,                       -- fixed odds: the price taken
  boxed               boolean NOT NULL,
  bonus               boolean NOT NULL,              -- a bonus bet: bonusFlag on every wallet call
  bet_limit           text,                          -- the tenant limit that cut the stake (max_stake, ...)
  reason_code         text,                          -- why not (wholly) accepted
  reason              text,
  medium              text,
  ip_address          text,
  created_at          timestamptz NOT NULL,
  updated_at          timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, bet_id),
  UNIQUE (tenant_id, user_id, idempotency_key)
);
CREATE INDEX bets_user_recent ON bets (tenant_id, user_id, created_at DESC, bet_id DESC);

CREATE TABLE bet_legs (
  tenant_id    uuid NOT NULL,
  bet_id       uuid NOT NULL,
  leg          integer NOT NULL CHECK (leg >= 1),
  meeting_id   bigint NOT NULL,
  race_number  integer NOT NULL,
  event_id     uuid NOT NULL,                        -- the race's event id in the catalogue
  event_name   text NOT NULL,                        -- e.g. "Flemington R5"
  meeting_name text NOT NULL,                        -- the venue
  event_time   timestamptz NOT NULL,                 -- the race's start time when the bet was taken
  selections   jsonb NOT NULL,                       -- runner numbers per position: [[1],[2,3]]
  seen_price   numeric,                              -- fixed odds: the price the user saw on this leg
  price        numeric,                              -- fixed odds: the price taken on this leg
  PRIMARY KEY (tenant_id, bet_id, leg),
  FOREIGN KEY (tenant_id, bet_id) REFERENCES bets ON DELETE CASCADE
);
CREATE INDEX bet_legs_race ON bet_legs (meeting_id, race_number);

CREATE TABLE bet_history (
  tenant_id   uuid NOT NULL,
  bet_id      uuid NOT NULL,
  seq         integer NOT NULL,
  at          timestamptz NOT NULL,
  from_status text,                                  -- null for the bet's first state
  to_status   text NOT NULL,
  cause       text NOT NULL,                         -- placement, wallet_rejected, limits, ...
  detail      jsonb,
  PRIMARY KEY (tenant_id, bet_id, seq),
  FOREIGN KEY (tenant_id, bet_id) REFERENCES bets ON DELETE CASCADE
);

CREATE TABLE tenant_limits (
  tenant_id            uuid PRIMARY KEY REFERENCES tenants,
  max_stake            numeric(16,2),                -- null: no limit
  max_payout           numeric(16,2),
  max_runner_liability numeric(16,2),
  updated_at           timestamptz NOT NULL
);

-- What the book stands to pay out per runner on fixed-odds win and place bets it took: updated in
-- the transaction that takes a bet, under this row's lock, so concurrent bets see each other.
CREATE TABLE runner_liability (
  tenant_id   uuid NOT NULL,
  meeting_id  bigint NOT NULL,
  race_number integer NOT NULL,
  runner      integer NOT NULL,
  kind        text NOT NULL,                         -- WIN or PLACE
  liability   numeric(18,2) NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant_id, meeting_id, race_number, runner, kind)
);
