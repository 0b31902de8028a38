-- Up Migration
-- Whether a tenant's wallet and JWKS URLs may lead to private addresses (loopback, RFC 1918,
-- link-local…): true when the platform wrote the configuration (the CLI, a platform token), false
-- when the tenant's own admin token did (docs/admin-api.md, "Private addresses"). Configurations that
-- exist already were accepted without the check and keep working; no default for new rows, so
-- every writer says which it is.
ALTER TABLE wallet_configs ADD COLUMN private_network boolean NOT NULL DEFAULT true;
ALTER TABLE wallet_configs ALTER COLUMN private_network DROP DEFAULT;
ALTER TABLE user_auth_configs ADD COLUMN private_network boolean NOT NULL DEFAULT true;
ALTER TABLE user_auth_configs ALTER COLUMN private_network DROP DEFAULT;
