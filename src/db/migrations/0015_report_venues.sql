-- Up Migration
-- A track owner's report client (docs/reports.md): the tracks whose meetings it sees, across every
-- tenant, as an authority sees its jurisdictions. Each JURISDICTION:Venue[:CODE], matched against
-- meetings' jurisdiction, venue (case-insensitively) and code. Empty: not a track owner.
ALTER TABLE operator_clients ADD COLUMN venues text[] NOT NULL DEFAULT '{}';
