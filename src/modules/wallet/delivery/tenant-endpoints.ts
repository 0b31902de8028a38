// The delivery worker's tenants: each configured wallet opened into an endpoint, reopened when its
// configuration changes. A configuration that cannot be opened (a secret sealed with another
// WAGERLINE_SECRET_KEY) costs only its own tenant: the tenant is skipped — its calls wait, pending —
// and logged once per configuration version, until set-wallet stores one that opens. A tenant's
// configuration is only ever replaced by a later version (readAlready).
import type { SecretBox } from '../../../crypto/secret-box.ts';
import type { Queryable } from '../../../db/pool.ts';
import type { WalletEndpoint } from './http-client.ts';
import { endpointOf } from '../config/wallet-config.service.ts';
import { listWalletConfigs, type WalletConfigRow } from '../config/wallet-config.queries.ts';

export interface TenantState {
  endpoint: WalletEndpoint;
  inflight: number;
  claiming?: Promise<number>;
  /** Asked to claim while a claim ran (its snapshot may miss what woke it): claim again after it. */
  again?: boolean;
  /** A claim was skipped for want of a free slot here since the last claim ran. */
  backlog?: boolean;
  /** Claims started so far (a call sent at commit asks whether one ran while it was in flight). */
  claims: number;
}

type Log = (message: string, fields?: Record<string, unknown>) => void;

export function createWalletTenants(deps: { db: Queryable; box: SecretBox; log: Log }) {
  const tenants = new Map<string, TenantState>();
  /** Tenant → the version of its configuration that could not be opened (already logged). */
  const unreadable = new Map<string, string>();

  function open(row: WalletConfigRow, version: string): WalletEndpoint | undefined {
    try {
      return endpointOf(row, deps.box);
    } catch (error) {
      unreadable.set(row.tenant_id, version);
      deps.log('wallet configuration unreadable: tenant skipped until its wallet is set again', {
        tenantId: row.tenant_id, version, err: String(error),
      });
      return undefined;
    }
  }

  /**
   * Whether the tenant's configuration already read (held, or unreadable) is at least this version.
   * Rereads overlap (a claim refused rereads while another reread runs) and may be answered out of
   * order: one that read before a change must not put the tenant back on its older configuration,
   * or a call claimed or leased under the newer one would be sent to the old URL.
   */
  function readAlready(tenantId: string, updatedAt: Date): boolean {
    const read = [tenants.get(tenantId)?.endpoint.version, unreadable.get(tenantId)];
    return read.some((version) => version !== undefined && Date.parse(version) >= updatedAt.getTime());
  }

  function apply(row: WalletConfigRow): void {
    if (readAlready(row.tenant_id, row.updated_at)) return;
    const version = row.updated_at.toISOString();
    const state = tenants.get(row.tenant_id);
    const endpoint = open(row, version);
    if (!endpoint) return;
    unreadable.delete(row.tenant_id);
    if (state) state.endpoint = endpoint;
    else tenants.set(row.tenant_id, { endpoint, inflight: 0, claims: 0 });
  }

  return {
    /** Rereads every configuration; never throws for one tenant's configuration. */
    async refresh(): Promise<void> {
      for (const row of await listWalletConfigs(deps.db)) apply(row);
    },
    /** The tenant's state, unless it has none or its current configuration cannot be opened. */
    usable(tenantId: string): TenantState | undefined {
      return unreadable.has(tenantId) ? undefined : tenants.get(tenantId);
    },
    known: (tenantId: string) => tenants.has(tenantId) || unreadable.has(tenantId),
    ids: () => [...tenants.keys()].filter((id) => !unreadable.has(id)),
    states: () => [...tenants.values()],
  };
}
