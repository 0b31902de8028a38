// Which tenants an admin token reaches. Every client belongs to a tenant, and an `admin` token acts
// on that tenant only; a token with scope `platform` (held by whoever runs wagerline) reaches every
// tenant. The routes under /admin/tenants/{tenant_id} call tenantInReach before anything else.
import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import type { Principal } from '../modules/auth/tokens.service.ts';

export const PLATFORM_SCOPE = 'platform';

export const isPlatform = (principal: Principal | undefined): boolean => principal?.scopes.includes(PLATFORM_SCOPE) ?? false;

/** The tenant named by the path (lower case), once the token is known to reach it; else a 403. */
export function tenantInReach(request: FastifyRequest, what = 'that tenant'): string {
  const { tenant_id } = request.params as { tenant_id: string };
  const principal = request.principal!;
  if (!isPlatform(principal) && principal.tenantId.toLowerCase() !== tenant_id.toLowerCase()) {
    throw new AppError('insufficient_scope', `this token's client belongs to tenant ${principal.tenantId}: it acts on ${what} only`);
  }
  return tenant_id.toLowerCase();
}
