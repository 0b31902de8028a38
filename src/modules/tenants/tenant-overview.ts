// `tenant show`: one tenant with everything configured for it — its clients (no secrets), its
// wallet (no secrets), how its frontend users authenticate and its acceptance limits. Each part
// comes from the module that owns it; null where nothing is configured.
import type { ClientView, TenantView } from './tenants.service.ts';

export interface TenantOverviewDeps {
  tenants: {
    showTenant(tenantId: string): Promise<TenantView>;
    listClients(tenantId: string): Promise<ClientView[]>;
  };
  wallet: { getWallet(tenantId: string): Promise<object | null> };
  users: { getAuth(tenantId: string): Promise<object | null> };
  betting: { getLimits(tenantId: string): Promise<object | null> };
}

export interface TenantOverview {
  tenant: TenantView;
  clients: ClientView[];
  wallet: object | null;
  user_auth: object | null;
  limits: object | null;
}

export function createTenantOverview(deps: TenantOverviewDeps) {
  return {
    async show(tenantId: string): Promise<TenantOverview> {
      const tenant = await deps.tenants.showTenant(tenantId);
      const id = tenant.tenant_id;
      const [clients, wallet, user_auth, limits] = await Promise.all([
        deps.tenants.listClients(id), deps.wallet.getWallet(id), deps.users.getAuth(id), deps.betting.getLimits(id),
      ]);
      return { tenant, clients, wallet, user_auth, limits };
    },
  };
}

export type TenantOverviewService = ReturnType<typeof createTenantOverview>;
