-- Up Migration
-- Bets placed through wagerline are written to reported_bets beside the uploaded ones, in the
-- upload's terms (docs/reports.md, "Bets placed through wagerline"). They carry the source
-- WAGERLINE and api_version 3. No client may report for an agency of that name, so an uploaded
-- bet can never take the key (tenant, source, bet id, leg) of a placed one, nor the other way.

ALTER TABLE reported_bets DROP CONSTRAINT reported_bets_api_version_check;
-- The source WAGERLINE and api_version 3 go together: rows of that source are written by the
-- betting module only, and every row it writes is of that source.
ALTER TABLE reported_bets ADD CONSTRAINT reported_bets_api_version_check
  CHECK (CASE WHEN source = 'WAGERLINE' THEN api_version = 3 ELSE api_version IN (1, 2) END);
COMMENT ON COLUMN reported_bets.api_version IS
  '1: /public/uploadRace, 2: /public/uploadRaceV2, 3: placed through wagerline (source WAGERLINE)';

ALTER TABLE operator_clients ADD CONSTRAINT operator_clients_agencies_not_wagerline
  CHECK (NOT ('WAGERLINE' = ANY (agencies)));
