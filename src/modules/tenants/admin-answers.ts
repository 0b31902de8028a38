// The answers of the admin and platform routes, for the OpenAPI document: the JSON the CLI's
// tenant and client commands print. The routes send it as the services return it (the schemas
// document it, http/problem.ts documentedAnswer), so a field added to a view is never dropped.
import { Type, type TSchema } from 'typebox';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Time = (description = 'ISO 8601, UTC') => Type.String({ description });
const Dollars = (description: string) => Nullable(Type.String({ description: `${description}: dollars as decimal text ("500.00"); null: no limit` }));

const tenant = {
  tenant_id: Type.String({ description: 'UUID' }),
  name: Type.String(),
  currency: Type.String({ description: 'ISO 4217' }),
  timezone: Type.String({ description: 'IANA time zone' }),
};
/** `tenant create` / POST /admin/tenants. */
export const TenantCreated = Type.Object(tenant);
const tenantView = { ...tenant, created_at: Time(), disabled: Type.Boolean(), disabled_at: Nullable(Time()) };
export const TenantView = Type.Object(tenantView);
/** `tenant disable`: the tenant, and whether this call disabled it (false: it already was). */
export const TenantDisabled = Type.Object({ ...tenantView, changed: Type.Boolean() });
/** `tenant set-zone`: the tenant with its new zone, and the zone it replaced. */
export const TenantZoneSet = Type.Object({ ...tenantView, previous_timezone: Type.String({ description: 'The zone replaced, one the database did not know or read differently from Node.js' }) });
export const TenantList = Type.Object({ tenants: Type.Array(TenantView, { description: 'Oldest first' }) });

const client = {
  client_id: Type.String(),
  tenant_id: Type.String(),
  name: Nullable(Type.String()),
  scopes: Type.Array(Type.String()),
  agencies: Type.Array(Type.String()),
  jurisdictions: Type.Array(Type.String()),
  venues: Type.Array(Type.String({ description: 'JURISDICTION:Venue[:CODE]' })),
  status: Type.Union([Type.Literal('active'), Type.Literal('revoked')]),
  created_at: Time(),
};
export const ClientView = Type.Object(client);
export const ClientList = Type.Object({ clients: Type.Array(ClientView) });
const secret = Type.String({ description: 'Shown only in this answer; stored as a hash' });
export const ClientCreated = Type.Object({ ...client, client_secret: secret });
export const SecretRotated = Type.Object({ client_id: Type.String(), client_secret: secret });
export const ClientRevoked = Type.Object({ client_id: Type.String(), status: Type.Literal('revoked') });
export const Grants = Type.Object({
  client_id: Type.String(),
  tenant_id: Type.String({ description: 'The client\'s own tenant' }),
  granted: Type.Array(Type.String(), { description: 'The other tenants it may see' }),
  tenants: Type.Array(Type.String(), { description: 'Every tenant it may see, its own first' }),
});
export const KeyRotated = Type.Object({ kid: Type.String({ description: 'The new signing key\'s id' }) });

const wallet = {
  tenant_id: Type.String(),
  url: Type.String(),
  auth: Type.Union([Type.Literal('client_credentials'), Type.Literal('api_key')]),
  client_id: Nullable(Type.String()),
  api_key_header: Nullable(Type.String()),
  signed: Type.Boolean({ description: 'Calls are signed (a signing secret is set)' }),
  amount_unit: Type.Union([Type.Literal('dollars'), Type.Literal('cents')]),
  concurrency: Type.Integer(),
  private_network: Type.Boolean(),
  updated_at: Time(),
};
/** A wallet configuration, without its secrets. */
export const WalletConfig = Type.Object(wallet);
export const WalletSaved = Type.Object({
  ...wallet,
  verified: Nullable(Type.String({ description: 'What the check before saving found; null when saved with "verify": false' })),
});
export const UserAuth = Type.Object({
  tenant_id: Type.String(),
  mode: Type.Union([Type.Literal('jwt'), Type.Literal('custom')]),
  jwks_url: Nullable(Type.String()),
  client_id: Nullable(Type.String()),
  private_network: Type.Boolean(),
  updated_at: Time(),
});
export const Limits = Type.Object({
  tenant_id: Type.String(),
  max_stake: Dollars('The most of one bet\'s stake taken'),
  max_payout: Dollars('The most one fixed-odds bet may pay out'),
  max_runner_liability: Dollars('The most the book may pay out on one runner'),
  updated_at: Time(),
});
/** `tenant show`: null where nothing is configured. */
export const TenantOverview = Type.Object({
  tenant: TenantView,
  clients: Type.Array(ClientView),
  wallet: Nullable(WalletConfig),
  user_auth: Nullable(UserAuth),
  limits: Nullable(Limits),
});
