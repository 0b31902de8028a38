-- Up Migration
-- The back-office (docs/backoffice.md): which tenants a back-office client may read and change
-- besides its own (a group operator running several brands), and the order back-office pages walk
-- a tenant's bets in (oldest first, bet id breaking ties).

-- Granted tenants of a client, owned by the tenants module (`wagerline client grant`). A client
-- always sees its own tenant; a row here adds one more.
CREATE TABLE backoffice_grants (
  client_id  text NOT NULL REFERENCES operator_clients (client_id) ON DELETE CASCADE,
  tenant_id  uuid NOT NULL REFERENCES tenants,
  granted_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (client_id, tenant_id)
);

-- getBets walks each tenant's bets by (created_at, bet_id) from a keyset; one index range per tenant.
CREATE INDEX bets_created ON bets (tenant_id, created_at, bet_id);
