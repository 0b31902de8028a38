-- Up Migration
-- Reporting upload (spec part A): the bets operators report per meeting and race, every earlier
-- version of each bet, and the meeting catalogue the upload deadline is computed from (spec 8).
-- See docs/upload.md for the field rules and the deadline definition.

-- The meeting catalogue of the reporting system (spec 2.1: meeting_id is "the meeting identifier
-- of the reporting system"), shared by every tenant: an authority's report joins bets of every
-- tenant to it by meeting_id. Filled by `wagerline meeting import`.
CREATE TABLE meetings (
  meeting_id   bigint PRIMARY KEY,                 -- meeting id of the reporting system, as uploaded
  meeting_date date NOT NULL,                      -- the meeting's (local) date: the racing day of its bets
  venue        text NOT NULL,                      -- track name
  jurisdiction text NOT NULL,                      -- racing jurisdiction / state code, upper case (e.g. NSW)
  code         char(1) NOT NULL CHECK (code IN ('T', 'H', 'G')), -- T thoroughbred, H harness, G greyhound
  imported_at  timestamptz NOT NULL DEFAULT now()  -- when this row was last imported
);
CREATE INDEX meetings_date_idx ON meetings (meeting_date);

CREATE TABLE race_starts (
  meeting_id  bigint NOT NULL REFERENCES meetings ON DELETE CASCADE, -- the meeting
  race_number integer NOT NULL CHECK (race_number >= 1),             -- race number within the meeting
  start_time  timestamptz NOT NULL,                                  -- scheduled (or actual) start of the race
  PRIMARY KEY (meeting_id, race_number)
);

-- One row per reported bet leg: the CURRENT version. Earlier versions are in reported_bet_revisions.
-- No foreign keys: this is the ingest hot path (tenant_id and client_id come from the verified token).
CREATE TABLE reported_bets (
  tenant_id         uuid NOT NULL,                 -- tenant of the uploading client
  source            text NOT NULL,                 -- betting agency code (upper case), one of the client's agencies
  bet_id            text NOT NULL,                 -- upload field "id", as text: V1 123 and V2 "123" are one bet
  leg               integer NOT NULL CHECK (leg >= 1), -- leg of a multi (or per-race leg of a quaddie/dailydouble); 1 otherwise
  meeting_id        bigint NOT NULL,               -- meeting of the upload this version came in
  race_number       integer NOT NULL,              -- race of the upload this version came in
  bet_time          timestamptz NOT NULL,          -- upload field "time": when the bet was placed
  bet_type          text NOT NULL,                 -- upload field "type", canonical lower case (win, place, multi, ...)
  runner_number     integer,                       -- runner of a win/place/multi leg; null when exotics_selection is set
  exotics_selection text,                          -- canonical form: no spaces, "(BOXED)" suffix upper case
  user_id           text NOT NULL,                 -- customer id in the operator's system, or cash/anon/anonymous
  user_name         text,                          -- customer name or pseudonym
  user_state        text,                          -- customer's state when betting, canonical upper case (NSW, VIC, ...)
  terminal_id       text,                          -- betting terminal; required for cash/anon/anonymous users
  info_type         text,                          -- betting product
  medium            text,                          -- internet, app, phone, ...
  resulted          boolean,                       -- whether the race had been resulted
  status            text NOT NULL,                 -- canonical: Paid, Cancelled, FullRefund, Unresulted, Pending, PartialRefund
  bonus             boolean NOT NULL DEFAULT false,-- bonus bet
  back_indicator    boolean NOT NULL DEFAULT false,-- the bet was backed off with another bookmaker
  bet_back_id       text,                          -- id of the bet back (as text)
  bet_back_agency   text,                          -- bookmaker the bet back was placed with
  bet_back_amount   numeric(18, 6),                -- stake of the bet back
  bet_back_revenue  numeric(18, 6),                -- payout on the bet back
  bet_back_date     timestamptz,                   -- when the bet back was placed
  amount            numeric(18, 6) NOT NULL,       -- stake (repeated on every leg of a multi)
  price             numeric(18, 6),                -- price (of this leg, for a multi)
  payout            numeric(18, 6),                -- total payout (repeated on every leg of a multi)
  net_result        numeric(18, 6),                -- operator's net result: amount - payout
  currency          char(3) NOT NULL,              -- ISO 4217; defaulted from the tenant
  api_version       smallint NOT NULL CHECK (api_version IN (1, 2)), -- 1: /public/uploadRace, 2: /public/uploadRaceV2
  client_id         text NOT NULL,                 -- operator client that uploaded this version
  first_received_at timestamptz NOT NULL,          -- when the bet was first received
  last_received_at  timestamptz NOT NULL,          -- when this (current) version was received
  racing_day        date NOT NULL,                 -- meeting date when the meeting is known, else local date of bet_time (tenant time zone)
  deadline_at       timestamptz NOT NULL,          -- upload deadline of racing_day when this version was received (spec 8)
  late              boolean NOT NULL,              -- this version was received after deadline_at
  revision          integer NOT NULL DEFAULT 1,    -- 1 on creation, +1 on every real change
  PRIMARY KEY (tenant_id, source, bet_id, leg)
);
-- Reading a race back (GET /public/bets) and per-race reports, in key order for keyset pagination.
CREATE INDEX reported_bets_race_idx ON reported_bets (tenant_id, meeting_id, race_number, source, bet_id, leg);
-- Reports by date range.
CREATE INDEX reported_bets_day_idx ON reported_bets (tenant_id, racing_day);
-- Compliance report of late uploads (few rows: partial).
CREATE INDEX reported_bets_late_idx ON reported_bets (tenant_id, last_received_at) WHERE late;

-- Every superseded version of a bet: when an upload changes a bet, the version it replaces is
-- copied here (with the time and client it had been received from) before the bet is updated.
-- The full history of a bet is these rows plus the current row (view reported_bet_history).
CREATE TABLE reported_bet_revisions (
  LIKE reported_bets,
  superseded_at timestamptz NOT NULL,              -- when the upload that replaced this version was received
  PRIMARY KEY (tenant_id, source, bet_id, leg, revision)
);
COMMENT ON TABLE reported_bet_revisions IS
  'Superseded versions of reported_bets; columns as in reported_bets (last_received_at/client_id/late describe that version).';

-- What was reported when: every version of every bet, oldest first per bet.
CREATE VIEW reported_bet_history AS
  SELECT r.*, false AS current FROM reported_bet_revisions r
  UNION ALL
  SELECT b.*, NULL::timestamptz AS superseded_at, true AS current FROM reported_bets b;
