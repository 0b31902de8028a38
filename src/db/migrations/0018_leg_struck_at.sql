-- Up Migration
-- When each leg's price was agreed: the bet's creation for the price the user struck, or the take
-- for a price that changed between the first check and the take (the bet is taken at the price
-- offered then). A late scratching's deduction applies to a leg struck before it (docs/settlement.md,
-- Late-scratching deductions): a price offered after the field changed is not reduced again.
-- Nullable, with no default and no backfill, so adding it rewrites nothing and locks bet_legs only
-- for an instant, and a process still running the code before it keeps placing bets: a leg without
-- it is read as struck at its bet's creation, the rule its settlement followed before.
ALTER TABLE bet_legs ADD COLUMN struck_at timestamptz;
