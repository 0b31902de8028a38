// SQL of the wallets' configuration (wallet_configs): one row per tenant, secrets sealed.
import type { Queryable } from '../../../db/pool.ts';

export interface WalletConfigRow {
  tenant_id: string;
  url: string;
  auth_kind: 'client_credentials' | 'api_key';
  client_id: string | null;
  client_secret_enc: string | null;
  api_key_enc: string | null;
  api_key_header: string | null;
  signing_secret_enc: string | null;
  amount_unit: 'dollars' | 'cents';
  concurrency: number;
  /** The URL may lead to private addresses, on the platform's word (docs/admin-api.md, "Private addresses"). */
  private_network: boolean;
  updated_at: Date;
}

export async function upsertWalletConfig(db: Queryable, c: Omit<WalletConfigRow, 'updated_at'>): Promise<WalletConfigRow> {
  const { rows } = await db.query<WalletConfigRow>(
    `INSERT INTO wallet_configs (tenant_id, url, auth_kind, client_id, client_secret_enc, api_key_enc, api_key_header,
                                 signing_secret_enc, amount_unit, concurrency, private_network)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     ON CONFLICT (tenant_id) DO UPDATE SET url = $2, auth_kind = $3, client_id = $4, client_secret_enc = $5,
       api_key_enc = $6, api_key_header = $7, signing_secret_enc = $8, amount_unit = $9, concurrency = $10,
       private_network = $11,
       -- The configuration's version, to the millisecond (the claim compares it: 0020): a change
       -- within the same millisecond as the last one still gets a version of its own.
       updated_at = greatest(clock_timestamp(), wallet_configs.updated_at + interval '1 millisecond')
     RETURNING *`,
    [c.tenant_id, c.url, c.auth_kind, c.client_id, c.client_secret_enc, c.api_key_enc, c.api_key_header,
      c.signing_secret_enc, c.amount_unit, c.concurrency, c.private_network],
  );
  return rows[0]!;
}

/**
 * Takes the claim's per-wallet lock (wallet_claim() in 0020: the same key) until the caller's
 * transaction ends. A change saved under it waits for the claims running, and the claims that
 * start meanwhile wait for it to commit: no claim checks the old version and then takes calls
 * queued after the change (the confirm of a bet whose reserve went to the new URL).
 */
export async function lockWalletClaims(tx: Queryable, tenantId: string): Promise<void> {
  await tx.query("SELECT pg_advisory_xact_lock(hashtextextended('wallet_claim:' || $1::uuid::text, 0))", [tenantId]);
}

export async function findWalletConfig(db: Queryable, tenantId: string): Promise<WalletConfigRow | undefined> {
  const { rows } = await db.query<WalletConfigRow>('SELECT * FROM wallet_configs WHERE tenant_id = $1', [tenantId]);
  return rows[0];
}

export async function listWalletConfigs(db: Queryable): Promise<WalletConfigRow[]> {
  const { rows } = await db.query<WalletConfigRow>('SELECT * FROM wallet_configs ORDER BY tenant_id');
  return rows;
}
