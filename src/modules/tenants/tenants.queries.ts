// SQL of tenants and operator clients.
import type { Queryable } from '../../db/pool.ts';

export interface TenantRow {
  tenant_id: string;
  name: string;
  currency: string;
  timezone: string;
  created_at: Date;
  disabled_at: Date | null;
}

export interface ClientRow {
  tenant_id: string;
  client_id: string;
  name: string | null;
  secret_hash: string;
  scopes: string[];
  agencies: string[];
  jurisdictions: string[];
  venues: string[];
  status: 'active' | 'revoked';
  created_at: Date;
  revoked_at: Date | null;
}

/** How PostgreSQL reads a time zone name (see zoneReadings). */
export interface ZoneReading {
  zone: string;
  /** A zone of its time zone database (pg_timezone_names), regardless of case. */
  known: boolean;
  /** A time zone abbreviation (pg_timezone_abbrevs), which AT TIME ZONE reads first: a fixed offset. */
  abbreviation: boolean;
  /** Its UTC offset in minutes at each instant as AT TIME ZONE reads it; null when it refuses the name (time_zone_usable). */
  offsets: number[] | null;
}

/**
 * How PostgreSQL reads each zone name: known as a zone, an abbreviation, and its offsets at
 * `instants`. One statement: pg_timezone_names reads every zone file (some 25 ms), so it is read
 * once and hashed, whatever the number of names. The CASE keeps AT TIME ZONE from names it would
 * refuse (22023), by the test uploads and bets pass (time_zone_usable): a name it reads as a POSIX
 * rule ("SystemV/AST4") is neither known nor an abbreviation, yet converted — and compared.
 */
export async function zoneReadings(db: Queryable, zones: string[], instants: Date[]): Promise<ZoneReading[]> {
  const { rows } = await db.query<ZoneReading>(
    `WITH names AS MATERIALIZED (SELECT lower(name) AS name FROM pg_timezone_names),
          abbrevs AS MATERIALIZED (SELECT lower(abbrev) AS name FROM pg_timezone_abbrevs),
          readings AS (SELECT DISTINCT z.zone, lower(z.zone) IN (SELECT name FROM names) AS known,
                              lower(z.zone) IN (SELECT name FROM abbrevs) AS abbreviation
                         FROM unnest($1::text[]) AS z(zone))
     SELECT r.zone, r.known, r.abbreviation,
            CASE WHEN time_zone_usable(r.zone) THEN ARRAY(
              SELECT round(extract(epoch FROM (i.at AT TIME ZONE r.zone) - (i.at AT TIME ZONE 'UTC')) / 60)::int
                FROM unnest($2::timestamptz[]) WITH ORDINALITY AS i(at, n) ORDER BY i.n) END AS offsets
       FROM readings r`, [zones, instants]);
  return rows;
}

/** Sets a tenant's time zone if it is still `from` (a concurrent change wins, and is reported). */
export async function replaceTimeZone(db: Queryable, tenantId: string, from: string, to: string): Promise<TenantRow | undefined> {
  const { rows } = await db.query<TenantRow>(
    'UPDATE tenants SET timezone = $3 WHERE tenant_id = $1 AND timezone = $2 RETURNING *', [tenantId, from, to]);
  return rows[0];
}

export async function insertTenant(db: Queryable, t: { name: string; currency: string; timezone: string }): Promise<TenantRow> {
  const { rows } = await db.query<TenantRow>(
    'INSERT INTO tenants (name, currency, timezone) VALUES ($1, $2, $3) RETURNING *',
    [t.name, t.currency, t.timezone],
  );
  return rows[0]!;
}

/** A tenant as one read of it gives it: its row, and whether the database converts times in its zone. */
export interface TenantRecord extends TenantRow {
  /**
   * False for a zone the database refuses (retired from tzdata, stored before creation checked
   * it): nothing in it can be stored, so its uploads and its users' bets are refused.
   */
  timezone_usable: boolean;
}

export async function findTenant(db: Queryable, tenantId: string): Promise<TenantRecord | undefined> {
  const { rows } = await db.query<TenantRecord>(
    'SELECT t.*, time_zone_usable(t.timezone) AS timezone_usable FROM tenants t WHERE t.tenant_id = $1', [tenantId]);
  return rows[0];
}

export async function listTenants(db: Queryable): Promise<TenantRow[]> {
  const { rows } = await db.query<TenantRow>('SELECT * FROM tenants ORDER BY created_at, tenant_id');
  return rows;
}

/** Marks a tenant disabled; a tenant disabled already keeps its first disabled_at. */
export async function disableTenant(db: Queryable, tenantId: string): Promise<TenantRow | undefined> {
  const { rows } = await db.query<TenantRow>(
    'UPDATE tenants SET disabled_at = coalesce(disabled_at, now()) WHERE tenant_id = $1 RETURNING *',
    [tenantId],
  );
  return rows[0];
}

export async function insertClient(
  db: Queryable,
  c: Omit<ClientRow, 'status' | 'created_at' | 'revoked_at'>,
): Promise<ClientRow> {
  const { rows } = await db.query<ClientRow>(
    `INSERT INTO operator_clients (tenant_id, client_id, name, secret_hash, scopes, agencies, jurisdictions, venues)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
    [c.tenant_id, c.client_id, c.name, c.secret_hash, c.scopes, c.agencies, c.jurisdictions, c.venues],
  );
  return rows[0]!;
}

export async function findClient(db: Queryable, clientId: string): Promise<ClientRow | undefined> {
  const { rows } = await db.query<ClientRow>('SELECT * FROM operator_clients WHERE client_id = $1', [clientId]);
  return rows[0];
}

/** A client with whether its tenant is disabled (the token endpoint refuses those). */
export async function findClientWithTenant(db: Queryable, clientId: string): Promise<(ClientRow & { tenant_disabled: boolean }) | undefined> {
  const { rows } = await db.query<ClientRow & { tenant_disabled: boolean }>(
    `SELECT c.*, (t.disabled_at IS NOT NULL) AS tenant_disabled
       FROM operator_clients c JOIN tenants t USING (tenant_id) WHERE c.client_id = $1`,
    [clientId],
  );
  return rows[0];
}

export async function listClients(db: Queryable, tenantId: string): Promise<ClientRow[]> {
  const { rows } = await db.query<ClientRow>(
    'SELECT * FROM operator_clients WHERE tenant_id = $1 ORDER BY created_at, client_id',
    [tenantId],
  );
  return rows;
}

export async function updateClientSecret(db: Queryable, clientId: string, secretHash: string): Promise<ClientRow | undefined> {
  const { rows } = await db.query<ClientRow>(
    `UPDATE operator_clients SET secret_hash = $2, secret_rotated_at = now()
     WHERE client_id = $1 RETURNING *`,
    [clientId, secretHash],
  );
  return rows[0];
}

export async function revokeClient(db: Queryable, clientId: string): Promise<ClientRow | undefined> {
  const { rows } = await db.query<ClientRow>(
    `UPDATE operator_clients SET status = 'revoked', revoked_at = coalesce(revoked_at, now())
     WHERE client_id = $1 RETURNING *`,
    [clientId],
  );
  return rows[0];
}

/** Clients whose tokens are refused: revoked ones, and every client of a disabled tenant. */
export async function revokedClientIds(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ client_id: string }>(
    `SELECT client_id FROM operator_clients
      WHERE status = 'revoked' OR tenant_id IN (SELECT tenant_id FROM tenants WHERE disabled_at IS NOT NULL)`,
  );
  return rows.map((r) => r.client_id);
}

/** A client with the tenants granted to it for the back-office (its own tenant not included). */
export async function findClientWithGrants(db: Queryable, clientId: string): Promise<(ClientRow & { granted: string[]; tenant_disabled: boolean }) | undefined> {
  const { rows } = await db.query<ClientRow & { granted: string[]; tenant_disabled: boolean }>(
    `SELECT c.*, array(SELECT g.tenant_id::text FROM backoffice_grants g WHERE g.client_id = c.client_id ORDER BY g.tenant_id) AS granted,
            EXISTS (SELECT 1 FROM tenants t WHERE t.tenant_id = c.tenant_id AND t.disabled_at IS NOT NULL) AS tenant_disabled
       FROM operator_clients c WHERE c.client_id = $1`,
    [clientId],
  );
  return rows[0];
}

/** Replaces the tenants granted to a client (in one statement: the old grants not named go). */
export async function replaceGrants(db: Queryable, clientId: string, tenantIds: string[]): Promise<void> {
  await db.query(
    `WITH gone AS (DELETE FROM backoffice_grants WHERE client_id = $1 AND NOT (tenant_id = ANY ($2::uuid[])))
     INSERT INTO backoffice_grants (client_id, tenant_id) SELECT $1, t FROM unnest($2::uuid[]) AS t
     ON CONFLICT (client_id, tenant_id) DO NOTHING`,
    [clientId, tenantIds],
  );
}

export async function existingTenants(db: Queryable, tenantIds: string[]): Promise<string[]> {
  const { rows } = await db.query<{ tenant_id: string }>('SELECT tenant_id FROM tenants WHERE tenant_id = ANY ($1::uuid[])', [tenantIds]);
  return rows.map((r) => r.tenant_id);
}
