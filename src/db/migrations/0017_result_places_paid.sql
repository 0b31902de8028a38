-- Up Migration
-- The places a race pays, fixed by its first result from the place terms in force and its starters
-- then, and carried by every later version: an amended result settles by the terms the race was
-- run under, not by terms changed since (docs/settlement.md, Places paid). NULL on results
-- recorded before this column: those races still read the current terms.
ALTER TABLE race_results ADD COLUMN places_paid integer CHECK (places_paid >= 0);
