// The admin API of a tenant (scope `admin`, docs/admin-api.md): the tenant's own record and time
// zone, its clients, its wallet, its frontend user auth and its limits — the same changes and the
// same JSON as `wagerline tenant …` and `wagerline client …`. A client acts on its own tenant only
// (a `platform` token on any: http/tenant-reach.ts); the platform's own routes are in platform.http.ts.
import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { Type } from 'typebox';
import { documentedAnswer, okResponse, problemResponses } from '../../http/problem.ts';
import * as answers from './admin-answers.ts';
import { AppError } from '../../errors.ts';
import { isPlatform, tenantInReach } from '../../http/tenant-reach.ts';
import { requirePlatformFor } from './cross-tenant.ts';
import type { TenantOverviewService } from './tenant-overview.ts';
import type { TenantService } from './tenants.service.ts';

const UUID = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const TenantParams = Type.Object({ tenant_id: Type.String({ pattern: UUID, description: 'The tenant, a UUID: the token\'s own (any tenant with scope platform)' }) });
const ClientParams = Type.Object({
  tenant_id: Type.String({ pattern: UUID, description: 'The tenant, a UUID: the token\'s own (any tenant with scope platform)' }),
  client_id: Type.String({ maxLength: 100, description: 'A client of that tenant' }),
});
const Text = (description: string, maxLength = 500) => Type.String({ maxLength, description });
const Codes = (description: string) => Type.Array(Type.String({ maxLength: 32 }), { maxItems: 100, description });
const PrivateNetwork = Type.Optional(Type.Boolean({
  description: 'Whether the URL may lead to a private address (loopback, RFC 1918, link-local…): only a platform token may say true. '
    + 'A platform token that omits it: an IP address is taken as written, a host name must resolve to public addresses. With a tenant\'s own token '
    + 'the URL must lead to public addresses, checked when saved and at every connection (docs/admin-api.md, "Private addresses")',
}));
const Limit = Type.Union([Type.String({ maxLength: 20 }), Type.Null()], { description: 'Dollars as decimal text ("500"); null removes the limit; omitted keeps it' });

/** set-zone's 409: only a zone the database does not know is replaced. */
const zoneKnown = {
  ...problemResponses(409)[409],
  description: 'conflict: the tenant\'s time zone is one the database knows and reads as Node.js does (only a zone it does not know or reads ' +
    'differently is replaced), or it changed meanwhile',
};

/**
 * Whether the URL a request sets may lead to private addresses: a platform token's word (omitted:
 * the platform's default, see SetWalletInput); never a tenant's own token's, or it could reach
 * into our network (403).
 */
function privateNetworkOf(request: FastifyRequest, asked: boolean | undefined): boolean | undefined {
  if (isPlatform(request.principal)) return asked;
  if (asked) {
    throw new AppError('insufficient_scope', 'only the platform may let a tenant\'s URL lead to a private address '
      + '(wagerline tenant set-wallet / set-auth --private-network, or a token with scope "platform"); omit private_network');
  }
  return false;
}

/** The services the admin routes of a tenant use (all built by the composition root). */
export interface TenantAdminDeps {
  tenants: TenantService;
  overview: TenantOverviewService;
  wallet: { setWallet(input: never): Promise<unknown> };
  users: { setAuth(tenantId: string, input: never): Promise<unknown> };
  betting: { setLimits(tenantId: string, input: { maxStake?: string | null; maxPayout?: string | null; maxRunnerLiability?: string | null }): Promise<unknown> };
}

export function registerTenantAdminRoutes(app: FastifyInstance, deps: TenantAdminDeps): void {
  // Authenticate before the body is read: an anonymous caller learns nothing about the body rules.
  const onRequest = app.authenticate('admin') as unknown as onRequestAsyncHookHandler;
  const security = [{ bearer: [] }];
  const tenant = { tags: ['admin'], security, params: TenantParams };
  const client = { tags: ['admin'], security, params: ClientParams };
  const read = problemResponses(400, 401, 403, 404);
  // Each route's 200: the JSON its CLI command prints (admin-answers.ts).
  const ok = (schema: object) => ({ ...okResponse(schema), ...read });
  const base = '/admin/tenants/:tenant_id';

  app.get(base, {
    onRequest, ...documentedAnswer,
    schema: { ...tenant, summary: 'The tenant with its clients, wallet, frontend user auth and limits (as `wagerline tenant show`)', response: ok(answers.TenantOverview) },
  }, async (request) => deps.overview.show(tenantInReach(request)));

  app.post(`${base}/disable`, {
    onRequest, ...documentedAnswer,
    schema: {
      ...tenant, response: ok(answers.TenantDisabled),
      summary: 'Disable the tenant (as `wagerline tenant disable`): its clients, this one included, get no tokens and their tokens are refused',
    },
  }, async (request) => deps.tenants.disableTenant(tenantInReach(request)));

  app.put(`${base}/timezone`, {
    onRequest, ...documentedAnswer,
    schema: {
      ...tenant,
      response: { ...okResponse(answers.TenantZoneSet), ...problemResponses(400, 401, 403, 404), 409: zoneKnown },
      summary: 'Replace the tenant\'s time zone when the database does not know it (its uploads are refused: 409 tenant_misconfigured, and so are '
        + 'its users\' bets) or reads it differently from Node.js (an abbreviation such as CET: racing days may differ), as `wagerline tenant set-zone`',
      body: Type.Object({
        timezone: Type.String({ minLength: 1, maxLength: 100, description: 'The new time zone, an IANA name the database knows and reads as Node.js does (e.g. America/Regina, Europe/Paris)' }),
      }, { additionalProperties: false }),
    },
  }, async (request) => deps.tenants.setTimeZone(tenantInReach(request), (request.body as { timezone: string }).timezone));

  app.put(`${base}/wallet`, {
    onRequest, ...documentedAnswer,
    schema: {
      ...tenant, response: ok(answers.WalletSaved),
      summary: 'Configure the tenant\'s wallet (as `wagerline tenant set-wallet`); secrets are stored sealed and never returned',
      body: Type.Object({
        url: Text('Base URL of the wallet', 2000),
        auth: Type.Union([Type.Literal('client_credentials'), Type.Literal('api_key')]),
        client_id: Type.Optional(Text('client_credentials: client id')),
        client_secret: Type.Optional(Text('client_credentials: client secret')),
        api_key: Type.Optional(Text('api_key: the shared key')),
        api_key_header: Type.Optional(Text('api_key: header carrying the key (default x-api-key)', 100)),
        signing_secret: Type.Optional(Text('Sign every call (at least 16 characters)')),
        amount_unit: Type.Optional(Type.Union([Type.Literal('dollars'), Type.Literal('cents')])),
        concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
        verify: Type.Optional(Type.Boolean({ description: 'Check the wallet answers before saving (default true, as the CLI)' })),
        private_network: PrivateNetwork,
      }, { additionalProperties: false }),
    },
  }, async (request) => {
    const b = request.body as Record<string, string | number | boolean | undefined>;
    const input: Record<string, unknown> = {
      url: b.url, auth: b.auth, clientId: b.client_id, clientSecret: b.client_secret, apiKey: b.api_key,
      apiKeyHeader: b.auth === 'api_key' ? (b.api_key_header ?? 'x-api-key') : b.api_key_header,
      signingSecret: b.signing_secret, amountUnit: b.amount_unit ?? 'dollars', concurrency: b.concurrency ?? 50, verify: b.verify ?? true,
      privateNetwork: privateNetworkOf(request, b.private_network as boolean | undefined), names: 'api',
    };
    return deps.wallet.setWallet({ tenantId: tenantInReach(request), ...Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) } as never);
  });

  app.put(`${base}/auth`, {
    onRequest, ...documentedAnswer,
    schema: {
      ...tenant, response: ok(answers.UserAuth),
      summary: 'Configure how the tenant\'s frontend users authenticate (as `wagerline tenant set-auth`)',
      body: Type.Object({
        mode: Type.Union([Type.Literal('jwt'), Type.Literal('custom')]),
        jwks_url: Type.Optional(Text('jwt: URL of the tenant\'s JWKS', 2000)),
        client_id: Type.Optional(Text('jwt: the client_id claim the tenant\'s tokens carry', 200)),
        private_network: PrivateNetwork,
      }, { additionalProperties: false }),
    },
  }, async (request) => {
    const b = request.body as { mode: string; jwks_url?: string; client_id?: string; private_network?: boolean };
    const input = {
      mode: b.mode, ...(b.jwks_url !== undefined && { jwksUrl: b.jwks_url }), ...(b.client_id !== undefined && { clientId: b.client_id }),
      privateNetwork: privateNetworkOf(request, b.private_network), names: 'api',
    };
    return deps.users.setAuth(tenantInReach(request), input as never);
  });

  app.put(`${base}/limits`, {
    onRequest, ...documentedAnswer,
    schema: {
      ...tenant, response: ok(answers.Limits),
      summary: 'Set the tenant\'s acceptance limits (as `wagerline tenant set-limits`); a limit omitted is kept, null removes it',
      body: Type.Object({ max_stake: Type.Optional(Limit), max_payout: Type.Optional(Limit), max_runner_liability: Type.Optional(Limit) }, { additionalProperties: false }),
    },
  }, async (request) => {
    const b = request.body as { max_stake?: string | null; max_payout?: string | null; max_runner_liability?: string | null };
    return deps.betting.setLimits(tenantInReach(request), { maxStake: b.max_stake, maxPayout: b.max_payout, maxRunnerLiability: b.max_runner_liability });
  });

  app.get(`${base}/clients`, {
    onRequest, ...documentedAnswer,
    schema: { ...tenant, summary: 'The tenant\'s clients, no secrets (as `wagerline client list`)', response: ok(answers.ClientList) },
  }, async (request) => ({ clients: await deps.tenants.listClients(tenantInReach(request)) }));

  app.post(`${base}/clients`, {
    onRequest, ...documentedAnswer,
    schema: {
      ...tenant, response: ok(answers.ClientCreated),
      summary: 'Create a client of the tenant (as `wagerline client create`); its client_secret is shown only in this answer',
      body: Type.Object({
        scopes: Type.Array(Type.String({ maxLength: 32 }), { minItems: 1, maxItems: 10, description: 'upload, report, backoffice, admin; catalog and platform only with a platform token' }),
        agencies: Type.Optional(Codes('Source codes the client may upload for: at least one with the upload scope, none without it')),
        jurisdictions: Type.Optional(Codes('For report clients: jurisdictions it may see (an authority; only with a platform token)')),
        venues: Type.Optional(Type.Array(Type.String({ maxLength: 240 }), {
          maxItems: 100, description: 'For report clients: the tracks whose meetings it may see, JURISDICTION:Venue[:CODE] as the catalogue has them (e.g. VIC:Flemington, VIC:Bendigo:H; a track owner; only with a platform token)',
        })),
        name: Type.Optional(Text('A label for the client', 200)),
      }, { additionalProperties: false }),
    },
  }, async (request) => {
    const b = request.body as { scopes: string[]; agencies?: string[]; jurisdictions?: string[]; venues?: string[]; name?: string };
    const tenantId = tenantInReach(request);
    requirePlatformFor(request.principal!, 'create such a client', b);
    return deps.tenants.createClient({ ...b, tenantId });
  });

  app.post(`${base}/clients/:client_id/rotate-secret`, {
    onRequest, ...documentedAnswer,
    schema: {
      ...client, response: ok(answers.SecretRotated),
      summary: 'Replace a client\'s secret (as `wagerline client rotate-secret`); the new secret is shown only in this answer',
    },
  }, async (request) => {
    const { client_id } = request.params as { client_id: string };
    const held = await deps.tenants.requireClientOf(tenantInReach(request), client_id);
    requirePlatformFor(request.principal!, 'replace the secret of such a client', held);
    return deps.tenants.rotateSecret(client_id);
  });

  app.post(`${base}/clients/:client_id/revoke`, {
    onRequest, ...documentedAnswer,
    schema: {
      ...client, response: ok(answers.ClientRevoked),
      summary: 'Revoke a client (as `wagerline client revoke`): no new tokens, its tokens refused within WAGERLINE_AUTH_REFRESH_SECONDS',
    },
  }, async (request) => {
    const { client_id } = request.params as { client_id: string };
    await deps.tenants.requireClientOf(tenantInReach(request), client_id);
    return deps.tenants.revokeClient(client_id);
  });
}
