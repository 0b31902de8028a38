// The platform's own admin routes (scope `platform`, docs/admin-api.md): creating and listing
// tenants, back-office grants across tenants and signing key rotation — the same changes and the
// same JSON as `wagerline tenant create | list`, `client grant` and `keys rotate`. They act on every
// tenant, so a tenant's `admin` token never reaches them.
import type { FastifyInstance, onRequestAsyncHookHandler } from 'fastify';
import { Type } from 'typebox';
import { documentedAnswer, okResponse, problemResponses } from '../../http/problem.ts';
import * as answers from './admin-answers.ts';
import { PLATFORM_SCOPE } from '../../http/tenant-reach.ts';
import type { TenantService } from './tenants.service.ts';

const UUID = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

export interface PlatformDeps {
  tenants: Pick<TenantService, 'createTenant' | 'listTenants' | 'grantTenants'>;
  tokens: { rotateKey(): Promise<{ kid: string }> };
}

export function registerPlatformRoutes(app: FastifyInstance, deps: PlatformDeps): void {
  // Authenticate before the body is read: an anonymous caller learns nothing about the body rules.
  const onRequest = app.authenticate(PLATFORM_SCOPE) as unknown as onRequestAsyncHookHandler;
  const base = { tags: ['platform'], security: [{ bearer: [] }] };

  app.get('/admin/tenants', {
    onRequest, ...documentedAnswer,
    schema: { ...base, summary: 'Every tenant, oldest first (as `wagerline tenant list`)', response: { ...okResponse(answers.TenantList), ...problemResponses(401, 403) } },
  }, async () => deps.tenants.listTenants());

  app.post('/admin/tenants', {
    onRequest, ...documentedAnswer,
    schema: {
      ...base, response: { ...okResponse(answers.TenantCreated), ...problemResponses(400, 401, 403) },
      summary: 'Create a tenant (as `wagerline tenant create`); then give it an admin client with POST /admin/tenants/{tenant_id}/clients',
      body: Type.Object({
        name: Type.String({ maxLength: 200, description: 'Brand name, 1 to 200 characters' }),
        currency: Type.Optional(Type.String({ maxLength: 3, description: 'Default currency, an active ISO 4217 code (default AUD)' })),
        timezone: Type.Optional(Type.String({ maxLength: 100, description: 'Local time zone, an IANA name the database and Node.js read alike: a Region/City name, not an abbreviation such as CET (default Australia/Sydney)' })),
      }, { additionalProperties: false }),
    },
  }, async (request) => deps.tenants.createTenant(request.body as { name: string; currency?: string; timezone?: string }));

  app.put('/admin/clients/:client_id/grants', {
    onRequest, ...documentedAnswer,
    schema: {
      ...base, response: { ...okResponse(answers.Grants), ...problemResponses(400, 401, 403, 404) },
      summary: 'Let a back-office client see these tenants besides its own, replacing its earlier grant; [] removes it (as `wagerline client grant`)',
      params: Type.Object({ client_id: Type.String({ maxLength: 100, description: 'A client with scope backoffice' }) }),
      body: Type.Object({
        tenants: Type.Array(Type.String({ pattern: UUID }), { maxItems: 1000, description: 'Tenant ids (UUIDs)' }),
      }, { additionalProperties: false }),
    },
  }, async (request) => {
    const { client_id } = request.params as { client_id: string };
    return deps.tenants.grantTenants(client_id, (request.body as { tenants: string[] }).tenants);
  });

  app.post('/admin/signing-keys/rotate', {
    onRequest, ...documentedAnswer,
    schema: {
      ...base, response: { ...okResponse(answers.KeyRotated), ...problemResponses(401, 403) },
      summary: 'Make a new key sign access tokens (as `wagerline keys rotate`); the old key verifies until its tokens expire',
    },
  }, async () => deps.tokens.rotateKey());
}
