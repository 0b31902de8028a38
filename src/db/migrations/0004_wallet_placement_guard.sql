-- The placement guard (docs/wallet.md, Reserve): when a reserve succeeds, a refundBet is queued
-- at once, due a short window later, and marked here. Placement cancels it by queueing its next
-- call for the bet (confirm, or its own refundBet) in time; if placement never does — it crashed,
-- or its transaction rolled back — the guard goes out and the user's funds are released.
ALTER TABLE wallet_calls ADD COLUMN placement_guard boolean NOT NULL DEFAULT false;

CREATE INDEX wallet_calls_open_guard ON wallet_calls (tenant_id, bet_id) WHERE placement_guard;
