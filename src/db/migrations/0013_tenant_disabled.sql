-- Up Migration
-- A disabled tenant (wagerline tenant disable): its clients get no tokens and their tokens are
-- refused, its frontend users are refused. NULL: the tenant is active.
ALTER TABLE tenants ADD COLUMN disabled_at timestamptz;
