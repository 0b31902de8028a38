-- Up Migration
-- Operator wallet integration (spec part B): per-tenant wallet configuration, the outbox of wallet
-- calls (one row per transaction, delivered one at a time per bet in sequence order), and every
-- attempt made to deliver a call. See docs/wallet.md.

CREATE TABLE wallet_configs (
  tenant_id          uuid PRIMARY KEY REFERENCES tenants,
  url                text NOT NULL,
  auth_kind          text NOT NULL CHECK (auth_kind IN ('client_credentials', 'api_key')),
  client_id          text,
  client_secret_enc  text,                -- sealed with WAGERLINE_SECRET_KEY
  api_key_enc        text,                -- sealed
  api_key_header     text,
  signing_secret_enc text,                -- sealed; null: requests are not signed
  amount_unit        text NOT NULL DEFAULT 'dollars' CHECK (amount_unit IN ('dollars', 'cents')),
  concurrency        integer NOT NULL DEFAULT 50 CHECK (concurrency BETWEEN 1 AND 1000),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  CHECK (auth_kind <> 'client_credentials' OR (client_id IS NOT NULL AND client_secret_enc IS NOT NULL)),
  CHECK (auth_kind <> 'api_key' OR (api_key_enc IS NOT NULL AND api_key_header IS NOT NULL))
);

-- The last sequence number given to a call of each bet. Upserting this row takes the bet's row
-- lock, so concurrent transactions enqueueing for one bet get sequences in commit order.
CREATE TABLE wallet_bet_sequences (
  tenant_id uuid NOT NULL,
  bet_id    uuid NOT NULL,
  last_seq  integer NOT NULL,
  PRIMARY KEY (tenant_id, bet_id)
);

-- status: pending (waiting for next_attempt_at), sending (claimed, lease_until bounds it),
-- delivered, refused (a reserve the wallet declined: the bet is not taken), failed (parked after
-- the last retry or a final 4xx), skipped (a refundBet whose reservation was refused), resolved
-- (closed by an operator without delivery).
CREATE TABLE wallet_calls (
  tenant_id        uuid NOT NULL REFERENCES tenants,
  transaction_id   uuid NOT NULL,
  bet_id           uuid NOT NULL,
  seq              integer NOT NULL,
  user_id          uuid NOT NULL,
  op               text NOT NULL CHECK (op IN ('reserve', 'confirm', 'refundBet', 'settleBet', 'debit', 'credit')),
  amount           numeric(16, 2) NOT NULL CHECK (amount >= 0),
  amount_unit      text NOT NULL CHECK (amount_unit IN ('dollars', 'cents')),
  bonus_flag       boolean NOT NULL,
  extra            jsonb NOT NULL DEFAULT '{}',   -- transactionType, betMetadata, reserve metadata
  secret_enc       text,                          -- reserve: the placement token, sealed
  only_if_reserved boolean NOT NULL DEFAULT false,
  status           text NOT NULL CHECK (status IN ('pending', 'sending', 'delivered', 'refused', 'failed', 'skipped', 'resolved')),
  failures         integer NOT NULL DEFAULT 0,    -- failed attempts counted by the retry schedule
  attempts         integer NOT NULL DEFAULT 0,    -- every attempt, including token renewals
  next_attempt_at  timestamptz NOT NULL,
  lease_until      timestamptz,
  lease_owner      text,
  created_at       timestamptz NOT NULL,
  finished_at      timestamptz,
  last_http_status integer,
  last_code        text,
  last_error       text,
  note             text,
  PRIMARY KEY (tenant_id, transaction_id),
  UNIQUE (tenant_id, bet_id, seq)
);
CREATE INDEX wallet_calls_ready ON wallet_calls (tenant_id, next_attempt_at) WHERE status = 'pending';
CREATE INDEX wallet_calls_leased ON wallet_calls (tenant_id, lease_until) WHERE status = 'sending';
-- Calls that still block the later calls of their bet (the ordering check of the claim).
CREATE INDEX wallet_calls_open ON wallet_calls (tenant_id, bet_id, seq)
  WHERE status IN ('pending', 'sending', 'failed');
-- Outbox depth and the age of its oldest call (metrics).
CREATE INDEX wallet_calls_outstanding ON wallet_calls (created_at) WHERE status IN ('pending', 'sending');
CREATE INDEX wallet_calls_failed ON wallet_calls (tenant_id, finished_at) WHERE status = 'failed';
CREATE INDEX wallet_calls_transaction ON wallet_calls (transaction_id);

CREATE TABLE wallet_call_attempts (
  tenant_id      uuid NOT NULL,
  transaction_id uuid NOT NULL,
  attempt        integer NOT NULL,
  started_at     timestamptz NOT NULL,
  duration_ms    integer NOT NULL,
  http_status    integer,
  outcome        text NOT NULL CHECK (outcome IN ('success', 'retry', 'final', 'unauthorized', 'interrupted')),
  response_body  text,          -- first 4 KB as received
  error          text,
  worker         text,
  PRIMARY KEY (tenant_id, transaction_id, attempt)
);

-- Claims up to p_max calls of one tenant's wallet for p_owner, never more than p_limit in flight
-- across all processes (the advisory lock serialises the claimers of one wallet). First, calls
-- whose lease ran out (their sender died) go back to pending, with an 'interrupted' attempt on
-- record; reserve calls are left to the reserve rescue, which also queues their refund. A call is
-- claimable when it is due and no earlier call of its bet is still open: this is what keeps a
-- bet's calls one at a time and in order.
CREATE FUNCTION wallet_claim(p_tenant uuid, p_now timestamptz, p_max integer, p_limit integer,
                             p_owner text, p_lease_until timestamptz)
RETURNS SETOF wallet_calls LANGUAGE plpgsql AS $$
DECLARE
  v_free integer;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('wallet_claim:' || p_tenant::text, 0));
  WITH expired AS (
    UPDATE wallet_calls SET status = 'pending', attempts = attempts + 1
     WHERE tenant_id = p_tenant AND status = 'sending' AND lease_until <= p_now AND op <> 'reserve'
    RETURNING tenant_id, transaction_id, attempts, lease_until, lease_owner)
  INSERT INTO wallet_call_attempts (tenant_id, transaction_id, attempt, started_at, duration_ms, outcome, error, worker)
  SELECT tenant_id, transaction_id, attempts, lease_until, 0, 'interrupted',
         'lease expired: the sender stopped before recording a result; sending again', lease_owner
    FROM expired
  ON CONFLICT DO NOTHING;

  SELECT p_limit - count(*) INTO v_free FROM wallet_calls
   WHERE tenant_id = p_tenant AND status = 'sending' AND lease_until > p_now;
  IF least(v_free, p_max) <= 0 THEN RETURN; END IF;
  RETURN QUERY
  UPDATE wallet_calls w
     SET status = 'sending', lease_owner = p_owner, lease_until = p_lease_until
   WHERE (w.tenant_id, w.transaction_id) IN (
     SELECT c.tenant_id, c.transaction_id FROM wallet_calls c
      WHERE c.tenant_id = p_tenant AND c.status = 'pending' AND c.next_attempt_at <= p_now
        -- A correlated scalar subquery (always a per-row index probe, never a join whose plan
        -- depends on statistics): c must be the lowest open call of its bet.
        AND c.seq = (SELECT min(p.seq) FROM wallet_calls p
                      WHERE p.tenant_id = c.tenant_id AND p.bet_id = c.bet_id
                        AND p.status IN ('pending', 'sending', 'failed'))
      ORDER BY c.next_attempt_at
      LIMIT least(v_free, p_max)
      FOR UPDATE OF c SKIP LOCKED)
  RETURNING w.*;
END $$;
