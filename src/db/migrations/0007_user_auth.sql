-- Up Migration
-- Frontend user authentication (spec 5.2), one row per tenant: how the tenant's frontend proves
-- who its user is. jwt: RS256 tokens verified with the keys of the tenant's JWKS (jwks_url) and
-- carrying the tenant's client_id; custom: an opaque token the operator's wallet checks at reserve.
-- See docs/frontend.md.

CREATE TABLE user_auth_configs (
  tenant_id  uuid PRIMARY KEY REFERENCES tenants,
  mode       text NOT NULL CHECK (mode IN ('jwt', 'custom')),
  jwks_url   text,
  client_id  text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- jwt needs both; custom carries neither, so a mode change never leaves a stale key source.
  CHECK (mode <> 'jwt' OR (jwks_url IS NOT NULL AND client_id IS NOT NULL)),
  CHECK (mode <> 'custom' OR (jwks_url IS NULL AND client_id IS NULL))
);

-- A token whose client_id is another tenant's is refused as a tenant mismatch: found by client_id.
CREATE INDEX user_auth_configs_client_id ON user_auth_configs (client_id) WHERE client_id IS NOT NULL;
