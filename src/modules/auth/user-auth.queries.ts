// SQL of the frontend user-auth configuration (user_auth_configs): one row per tenant.
import type { Queryable } from '../../db/pool.ts';

export interface UserAuthRow {
  tenant_id: string;
  mode: 'jwt' | 'custom';
  jwks_url: string | null;
  client_id: string | null;
  /** The JWKS URL may lead to private addresses, on the platform's word (docs/admin-api.md, "Private addresses"). */
  private_network: boolean;
  updated_at: Date;
}

export async function upsertUserAuth(db: Queryable, c: Omit<UserAuthRow, 'updated_at'>): Promise<UserAuthRow> {
  const { rows } = await db.query<UserAuthRow>(
    `INSERT INTO user_auth_configs (tenant_id, mode, jwks_url, client_id, private_network)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (tenant_id) DO UPDATE SET mode = $2, jwks_url = $3, client_id = $4, private_network = $5,
       updated_at = clock_timestamp()
     RETURNING *`,
    [c.tenant_id, c.mode, c.jwks_url, c.client_id, c.private_network],
  );
  return rows[0]!;
}

export async function findUserAuth(db: Queryable, tenantId: string): Promise<UserAuthRow | undefined> {
  const { rows } = await db.query<UserAuthRow>('SELECT * FROM user_auth_configs WHERE tenant_id = $1', [tenantId]);
  return rows[0];
}

/** Whether some tenant other than `tenantId` is configured with this jwt client_id. */
export async function clientIdOfOtherTenant(db: Queryable, tenantId: string, clientId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'SELECT 1 FROM user_auth_configs WHERE client_id = $1 AND tenant_id <> $2 LIMIT 1',
    [clientId, tenantId],
  );
  return Boolean(rowCount);
}
