-- Up Migration
-- Results and settlement (docs/settlement.md): a race's results (every version kept: an amended
-- final result is a new version), the places paid per jurisdiction, the bet states after placement
-- with the money the wallet was sent for each bet, and the durable queue of race settlements.

-- Results, owned by the catalogue. The current result is the highest version.
CREATE TABLE race_results (
  meeting_id  bigint NOT NULL,
  race_number integer NOT NULL,
  version     integer NOT NULL CHECK (version >= 1),
  final       boolean NOT NULL,                      -- false: an interim result (shown, never settled)
  placings    jsonb NOT NULL,                        -- places in order, runners sharing each: [[4],[7,2],[1]]
  dividends   jsonb NOT NULL DEFAULT '{}',           -- tote dividends per $1 unit (racing/results.ts)
  recorded_at timestamptz NOT NULL,
  PRIMARY KEY (meeting_id, race_number, version),
  FOREIGN KEY (meeting_id, race_number) REFERENCES race_starts ON DELETE CASCADE
);

-- Places paid by starters, per jurisdiction (meetings.jurisdiction); '*' applies where a
-- jurisdiction has no row. terms: [{"min_starters": 8, "places": 3}, {"min_starters": 5, "places": 2}].
CREATE TABLE place_terms (
  jurisdiction text PRIMARY KEY,
  terms        jsonb NOT NULL,
  updated_at   timestamptz NOT NULL DEFAULT now()
);
INSERT INTO place_terms (jurisdiction, terms) VALUES ('*', '[{"min_starters": 8, "places": 3}, {"min_starters": 5, "places": 2}]');

-- Bets after placement: settled (won or lost), refunded, cancelled or cashed out.
ALTER TABLE bets DROP CONSTRAINT bets_status_check;
ALTER TABLE bets ADD CONSTRAINT bets_status_check
  CHECK (status IN ('pending', 'accepted', 'partially_accepted', 'rejected', 'settled', 'refunded', 'cancelled', 'cashed_out'));
ALTER TABLE bets
  ADD COLUMN result         text CHECK (result IN ('won', 'lost')),  -- settled bets: the current verdict
  -- What the wallet was sent for the bet (racing/bet-ledger.ts): settlement sends the difference.
  ADD COLUMN payout         numeric(16,2) NOT NULL DEFAULT 0,      -- net winnings: settleBet − debits of winnings
  ADD COLUMN refunded       numeric(16,2) NOT NULL DEFAULT 0,      -- refundBet
  ADD COLUMN partial_refund numeric(16,2) NOT NULL DEFAULT 0,      -- credit betpartialrefund
  ADD COLUMN cash_out       numeric(16,2),                         -- credit cashout
  ADD COLUMN adjusted       numeric(16,2) NOT NULL DEFAULT 0,      -- credit adjustreversetransaction
  ADD COLUMN settled_at     timestamptz,                           -- the first settleBet
  ADD COLUMN cancel_reason  text;

-- Settling a race walks its bets in (tenant, bet) order.
DROP INDEX bet_legs_race;
CREATE INDEX bet_legs_race ON bet_legs (meeting_id, race_number, tenant_id, bet_id);

-- A race to settle: queued in the transaction that records its final result, its abandonment or a
-- scratching, and worked through in batches, each batch one transaction that moves the cursor.
-- A process that dies mid-way leaves the job pending at its last committed batch; re-settling a
-- bet is harmless (a difference of zero sends nothing).
CREATE TABLE settlement_jobs (
  job_id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  meeting_id    bigint NOT NULL,
  race_number   integer NOT NULL,
  cause         text NOT NULL CHECK (cause IN ('result', 'amendment', 'abandoned', 'scratching')),
  status        text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done')),
  after_tenant  uuid,                                  -- keyset cursor: the last bet settled
  after_bet     uuid,
  bets_seen     integer NOT NULL DEFAULT 0,
  bets_changed  integer NOT NULL DEFAULT 0,
  calls_queued  integer NOT NULL DEFAULT 0,
  problem       text,                                  -- the last bet it could not settle, and why
  created_at    timestamptz NOT NULL,
  finished_at   timestamptz
);
CREATE INDEX settlement_jobs_pending ON settlement_jobs (job_id) WHERE status = 'pending';
CREATE INDEX settlement_jobs_race ON settlement_jobs (meeting_id, race_number, job_id);
