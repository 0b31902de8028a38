-- Up Migration
-- A bet's legs and history are written only by the statements that write the bet itself (the
-- placement's insert, the take's and settlement's updates: each inserts them from the bet rows it
-- wrote), and bets are never deleted. The foreign keys to bets therefore never refused anything,
-- but each of their checks locked the bet row (FOR KEY SHARE): three a placement, a fifth of
-- PostgreSQL's CPU a placement at 16 placements in flight and two fifths at 128
-- (docs/performance.md, "Now (2026-11-26): bet rows without foreign keys to bets"). Dropped for
-- that, and their ON DELETE CASCADE with them: anything that ever deletes bets (a retention job)
-- deletes their legs and history itself.
ALTER TABLE bet_legs DROP CONSTRAINT bet_legs_tenant_id_bet_id_fkey;
ALTER TABLE bet_history DROP CONSTRAINT bet_history_tenant_id_bet_id_fkey;

