// Claiming a tenant's due calls (wallet_claim, in 0020_wallet_claim_config_version.sql): at most
// what the wallet's concurrency leaves free across all processes, each the lowest open call of its
// bet, leased to the claimer. The claim names the version of the wallet configuration the calls
// will be sent with; when set-wallet changed it since the worker read it, the claim takes nothing
// and the configuration is read again first. set-wallet saves under the claim's lock
// (lockWalletClaims), so no change commits between a claim's check and its take. So a call claimed
// after a change commits, or queued after it, never goes to the URL, or with the credentials, the
// tenant had before (a call already in flight finishes where it was sent).
import type { Queryable } from '../../../db/pool.ts';
import type { CallRow } from '../outbox/outbox.queries.ts';
import type { TenantState } from './tenant-endpoints.ts';

export interface ClaimInput {
  tenantId: string;
  now: Date;
  max: number;
  limit: number;
  owner: string;
  leaseUntil: Date;
  /** The version of the wallet configuration the calls will be sent with (WalletEndpoint.version). */
  configVersion: string;
}

/** The tenant's wallet configuration is no longer the version the claimer named: nothing was claimed. */
export class ConfigChanged extends Error {
  constructor(readonly tenantId: string) {
    super(`the wallet configuration of tenant ${tenantId} changed since it was read`);
  }
}

export async function claim(db: Queryable, c: ClaimInput): Promise<CallRow[]> {
  try {
    const { rows } = await db.query<CallRow>({
      name: 'wallet_claim',
      text: 'SELECT * FROM wallet_claim($1, $2, $3, $4, $5, $6, $7)',
      values: [c.tenantId, c.now, c.max, c.limit, c.owner, c.leaseUntil, c.configVersion],
    });
    return rows;
  } catch (error) {
    throw (error as { code?: string }).code === 'WLCFG' ? new ConfigChanged(c.tenantId) : error;
  }
}

interface ClaimDeps {
  db: Queryable;
  tenants: { usable(tenantId: string): TenantState | undefined };
  /** Reads every tenant's configuration again (the worker's tenants). */
  refresh(): Promise<void>;
  log(message: string, fields?: Record<string, unknown>): void;
}

/**
 * Claims with the configuration the worker holds for the tenant (`state`); one changed since is
 * read again, and the claim made with it. The calls are then sent with `state.endpoint`.
 */
export async function claimCurrent(deps: ClaimDeps, state: TenantState, input: Omit<ClaimInput, 'configVersion'>): Promise<CallRow[]> {
  try {
    return await claim(deps.db, { ...input, configVersion: state.endpoint.version });
  } catch (error) {
    if (!(error instanceof ConfigChanged)) throw error;
    const read = state.endpoint.version;
    await deps.refresh();
    if (!deps.tenants.usable(input.tenantId)) return []; // unreadable now: the tenant is skipped (logged)
    if (state.endpoint.version === read) {
      deps.log('wallet claim refused for the configuration version read just now', { tenant: input.tenantId, version: read });
      return [];
    }
    return claim(deps.db, { ...input, configVersion: state.endpoint.version });
  }
}
