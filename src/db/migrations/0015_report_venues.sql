-- Up Migration
-- A track owner's report client (docs/reports.md): the venues whose meetings it sees, across every
-- tenant, as an authority sees its jurisdictions. Names as the catalogue's meetings.venue, matched
-- case-insensitively. Empty: not a track owner.
ALTER TABLE operator_clients ADD COLUMN venues text[] NOT NULL DEFAULT '{}';
