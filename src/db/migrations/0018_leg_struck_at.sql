-- Up Migration
-- When each leg's price was agreed: the bet's creation for the price the user struck, or the take
-- for a price that rose between the first check and the take (the bet is taken at the price offered
-- then). A late scratching's deduction applies to a leg struck before it (docs/settlement.md,
-- Late-scratching deductions): a price offered after the field changed is not reduced again.
ALTER TABLE bet_legs ADD COLUMN struck_at timestamptz;

-- Legs written before: their bets' creation, the time every earlier settlement read.
UPDATE bet_legs l SET struck_at = b.created_at FROM bets b WHERE b.tenant_id = l.tenant_id AND b.bet_id = l.bet_id;

ALTER TABLE bet_legs ALTER COLUMN struck_at SET NOT NULL;
