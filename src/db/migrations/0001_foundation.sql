-- Up Migration
-- Tenants (operator brands), their operator clients, and the service's token signing keys.
-- Every table holding tenant data carries tenant_id first in its primary key (see docs/architecture.md).

CREATE TABLE tenants (
  tenant_id  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name       text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  currency   text NOT NULL DEFAULT 'AUD' CHECK (currency ~ '^[A-Z]{3}$'),
  timezone   text NOT NULL DEFAULT 'Australia/Sydney',
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE operator_clients (
  tenant_id         uuid NOT NULL REFERENCES tenants,
  client_id         text NOT NULL,
  name              text,
  secret_hash       text NOT NULL,
  scopes            text[] NOT NULL CHECK (cardinality(scopes) > 0),
  agencies          text[] NOT NULL DEFAULT '{}',
  jurisdictions     text[] NOT NULL DEFAULT '{}',
  status            text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'revoked')),
  created_at        timestamptz NOT NULL DEFAULT now(),
  secret_rotated_at timestamptz NOT NULL DEFAULT now(),
  revoked_at        timestamptz,
  PRIMARY KEY (tenant_id, client_id)
);
-- The token endpoint knows only the client_id: it is unique across tenants.
CREATE UNIQUE INDEX operator_clients_client_id_key ON operator_clients (client_id);

CREATE TABLE signing_keys (
  kid             text PRIMARY KEY,
  alg             text NOT NULL,
  public_jwk      jsonb NOT NULL,
  private_key_enc text NOT NULL,          -- PKCS#8 PEM sealed with WAGERLINE_SECRET_KEY (AES-256-GCM)
  created_at      timestamptz NOT NULL DEFAULT now(),
  retired_at      timestamptz             -- set when a newer key takes over; verifies until its tokens expire
);
