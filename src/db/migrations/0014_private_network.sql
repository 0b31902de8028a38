-- Up Migration
-- Whether a tenant's wallet and JWKS URLs may lead to private addresses (loopback, RFC 1918,
-- link-local…): only on the platform's word, or for an IP address the platform wrote (nothing can
-- re-point it); never when the tenant's own admin token wrote the URL (docs/admin-api.md, "Private
-- addresses"). Configurations saved before: an IP address keeps working as written, a host name
-- must resolve to public addresses from now on (`tenant set-wallet … --private-network` to trust
-- one on a private network). No default for new rows: every writer says which it is.
ALTER TABLE wallet_configs ADD COLUMN private_network boolean;
UPDATE wallet_configs SET private_network = url ~ '^https?://(\d{1,3}(\.\d{1,3}){3}|\[[0-9A-Fa-f:.]+\])(:\d+)?(/|$)';
ALTER TABLE wallet_configs ALTER COLUMN private_network SET NOT NULL;
ALTER TABLE user_auth_configs ADD COLUMN private_network boolean;
UPDATE user_auth_configs SET private_network = coalesce(jwks_url ~ '^https?://(\d{1,3}(\.\d{1,3}){3}|\[[0-9A-Fa-f:.]+\])(:\d+)?(/|$)', false);
ALTER TABLE user_auth_configs ALTER COLUMN private_network SET NOT NULL;
