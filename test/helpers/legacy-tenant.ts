// A tenant row as an earlier version stored it, its time zone past today's checks (a name the
// database does not know, or one it reads otherwise than Node.js), with an upload client and its
// token: what the tests of such tenants start from.
import type { TestDatabase } from './db.ts';

type Ok = (args: string[]) => Promise<Record<string, string>>;

export async function tenantWithZone(db: TestDatabase, ok: Ok, name: string, zone: string): Promise<{ tenantId: string; token: string }> {
  const { rows } = await db.pool.query<{ tenant_id: string }>(
    "INSERT INTO tenants (name, currency, timezone) VALUES ($1, 'AUD', $2) RETURNING tenant_id", [name, zone]);
  const tenantId = rows[0]!.tenant_id;
  const client = await ok(['client', 'create', '--tenant', tenantId, '--scopes', 'upload', '--agencies', 'TAB']);
  const { access_token } = await ok(['token', '--client-id', client.client_id!, '--client-secret', client.client_secret!]);
  return { tenantId, token: access_token! };
}
