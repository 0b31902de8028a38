-- Up Migration
-- The race catalogue grows on the rows `meeting import` writes: race_starts (one row per race)
-- gains a stable event id, a status and the products it offers; runners, their fixed-odds prices
-- with every change kept, and the meeting's multi-race pools are new. The deadline functions of
-- 0005 read only meetings.meeting_date and race_starts.start_time, which stay as they were.
-- See docs/catalogue.md.

ALTER TABLE race_starts
  -- The race's id toward wallets (betMetadata legs[].eventId) and the back-office (event_id):
  -- set once, never changed by a re-import.
  ADD COLUMN event_id uuid NOT NULL DEFAULT gen_random_uuid(),
  ADD COLUMN status text NOT NULL DEFAULT 'open'
    CHECK (status IN ('open', 'suspended', 'closed', 'interim', 'final', 'abandoned')),
  ADD COLUMN status_changed_at timestamptz,
  -- Products offered on the race (a multi takes any race offering win).
  ADD COLUMN products text[] NOT NULL DEFAULT '{win,place}'
    CHECK (products <@ ARRAY['win', 'place', 'exacta', 'quinella', 'trifecta', 'firstfour']::text[]);
CREATE UNIQUE INDEX race_starts_event_id_key ON race_starts (event_id);

CREATE TABLE runners (
  meeting_id      bigint NOT NULL,
  race_number     integer NOT NULL,
  runner_number   integer NOT NULL CHECK (runner_number BETWEEN 1 AND 99), -- saddle cloth / box number
  name            text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  scratched       boolean NOT NULL DEFAULT false,
  scratched_at    timestamptz,                      -- when the scratching was recorded
  win_deduction   numeric(4, 2) CHECK (win_deduction >= 0),   -- late-scratching deduction, percent
  place_deduction numeric(4, 2) CHECK (place_deduction >= 0),
  -- Fixed-odds prices of a $1 unit, exact decimals (never float); null: not priced.
  win_price       numeric(7, 2) CHECK (win_price BETWEEN 1.01 AND 10000),
  place_price     numeric(7, 2) CHECK (place_price BETWEEN 1.01 AND 10000),
  prices_at       timestamptz,                      -- when the current prices were set
  prices_source   text,                             -- import | price (CLI or admin API)
  PRIMARY KEY (meeting_id, race_number, runner_number),
  FOREIGN KEY (meeting_id, race_number) REFERENCES race_starts ON DELETE CASCADE,
  CHECK (scratched = (scratched_at IS NOT NULL))
);

-- Every price a runner has had, with the time it was set: written by the trigger below, so no
-- writer can change a price without leaving its trace.
CREATE TABLE runner_price_history (
  meeting_id    bigint NOT NULL,
  race_number   integer NOT NULL,
  runner_number integer NOT NULL,
  changed_at    timestamptz NOT NULL,
  win_price     numeric(7, 2),
  place_price   numeric(7, 2),
  source        text,
  seq           bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (meeting_id, race_number, runner_number, seq),
  FOREIGN KEY (meeting_id, race_number, runner_number) REFERENCES runners ON DELETE CASCADE
);

CREATE FUNCTION runners_record_price() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' AND NEW.win_price IS NULL AND NEW.place_price IS NULL THEN
    RETURN NEW;
  END IF;
  IF TG_OP = 'UPDATE' AND NEW.win_price IS NOT DISTINCT FROM OLD.win_price
     AND NEW.place_price IS NOT DISTINCT FROM OLD.place_price THEN
    RETURN NEW;
  END IF;
  INSERT INTO runner_price_history (meeting_id, race_number, runner_number, changed_at, win_price, place_price, source)
  VALUES (NEW.meeting_id, NEW.race_number, NEW.runner_number, coalesce(NEW.prices_at, now()), NEW.win_price, NEW.place_price, NEW.prices_source);
  RETURN NEW;
END
$$;
CREATE TRIGGER runners_price_history AFTER INSERT OR UPDATE OF win_price, place_price ON runners
  FOR EACH ROW EXECUTE FUNCTION runners_record_price();

-- Every status change of a race with its time: when a race closed settles late-bet disputes.
CREATE TABLE race_status_history (
  meeting_id  bigint NOT NULL,
  race_number integer NOT NULL,
  seq         bigint GENERATED ALWAYS AS IDENTITY,
  from_status text NOT NULL,
  to_status   text NOT NULL,
  changed_at  timestamptz NOT NULL,
  PRIMARY KEY (meeting_id, race_number, seq),
  FOREIGN KEY (meeting_id, race_number) REFERENCES race_starts ON DELETE CASCADE
);

-- Multi-race pools of a meeting: a quaddie over 4 races, a daily double over 2 (an early and a
-- main quaddie are two rows). Races are distinct and ascending, checked on import.
CREATE TABLE meeting_pools (
  meeting_id bigint NOT NULL REFERENCES meetings ON DELETE CASCADE,
  product    text NOT NULL CHECK (product IN ('quaddie', 'dailydouble')),
  races      integer[] NOT NULL
    CHECK (cardinality(races) = CASE product WHEN 'quaddie' THEN 4 ELSE 2 END),
  PRIMARY KEY (meeting_id, product, races)
);
