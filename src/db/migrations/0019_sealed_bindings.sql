-- Up Migration
-- Secrets sealed with a binding to their place (crypto/secret-box.ts "v2"): the wallets' secrets
-- are bound to their tenant, column and URL. The values sealed before that are bound once, by the
-- first process to start (wallet/config/rebind-secrets.ts, which needs the secret key: SQL cannot),
-- and recorded here; after that an unbound value is never opened, nor bound, wherever it appears.
CREATE TABLE sealed_bindings (
  name     text PRIMARY KEY,
  bound_at timestamptz NOT NULL DEFAULT now()
);
