// Tenants (operator brands) and their operator clients.
import { randomBytes } from 'node:crypto';
import type { Pool } from '../../db/pool.ts';
import { AppError, echo } from '../../errors.ts';
import { generateSecret, hashSecret } from '../auth/secret-hash.ts';
import * as q from './tenants.queries.ts';
import { PLACED_SOURCE } from '../../racing/bet-kinds.ts';
import { isUuid } from '../../racing/values.ts';
import { currencyCode } from '../../racing/currencies.ts';
import { characters, unstorable } from '../../http/text-rules.ts';
import { tenantsByZoneFault, timeZoneProblem, zoneChange } from './time-zones.ts';

export const SCOPES = ['upload', 'report', 'backoffice', 'catalog', 'admin', 'platform'] as const;
export type Scope = (typeof SCOPES)[number];

export interface Tenant {
  tenant_id: string;
  name: string;
  currency: string;
  timezone: string;
}

/** A tenant as `tenant list` and `tenant show` print it. */
export interface TenantView extends Tenant {
  created_at: string;
  disabled: boolean;
  disabled_at: string | null;
}

export function tenantView(row: q.TenantRow): TenantView {
  return {
    tenant_id: row.tenant_id,
    name: row.name,
    currency: row.currency,
    timezone: row.timezone,
    created_at: row.created_at.toISOString(),
    disabled: row.disabled_at !== null,
    disabled_at: row.disabled_at?.toISOString() ?? null,
  };
}

/** A back-office client as the back-office sees it: its own tenant first, then those granted. */
export interface BackofficeClient {
  client_id: string;
  tenant_id: string;
  scopes: string[];
  tenant_ids: string[];
}

/** A client as shown to its owner: everything but the secret. */
export interface ClientView {
  client_id: string;
  tenant_id: string;
  name: string | null;
  scopes: string[];
  agencies: string[];
  jurisdictions: string[];
  venues: string[];
  status: 'active' | 'revoked';
  created_at: string;
}

function bad(message: string): AppError {
  return new AppError('bad_request', message);
}

/**
 * A name as given (a tenant's brand, a client's label): trimmed, counted in characters as the admin
 * API's schemas count them (an emoji is one), storable as sent. The CLI has no schema in front of
 * the service, so the rule is here for both.
 */
function nameText(raw: string, what: string, required: boolean): string | null {
  const name = raw.trim();
  if ((required && !name) || characters(name) > 200 || unstorable(name)) {
    throw bad(`${what} must be ${required ? '1 to 200 characters' : 'at most 200 characters'} (no U+0000, no unpaired surrogate)`);
  }
  return name || null;
}

/** Most codes (agencies, jurisdictions) or venues of one client, as the admin API's schema allows. */
const MAX_CODES = 100;

function codes(values: string[], what: string, pattern: RegExp): string[] {
  const out = [...new Set(values.map((v) => v.trim().toUpperCase()).filter(Boolean))];
  if (out.length > MAX_CODES) throw bad(`a client has at most ${MAX_CODES} ${what === 'agency' ? 'agencies' : `${what}s`} (${out.length} given)`);
  const wrong = out.find((v) => !pattern.test(v));
  if (wrong) throw bad(`${what} "${wrong}" is not valid (letters, digits, _ and -, at most 32)`);
  return out;
}

/** Agency codes of a client: never the source of bets placed through wagerline (their keys would meet). */
function agencies(values: string[]): string[] {
  const out = codes(values, 'agency', /^[A-Z0-9_-]{1,32}$/);
  if (out.includes(PLACED_SOURCE)) throw bad(`agency "${PLACED_SOURCE}" is reserved: it is the source of the bets placed through wagerline`);
  return out;
}

/**
 * A track owner's venues, each `JURISDICTION:Venue[:CODE]` (`VIC:Flemington`, `VIC:Bendigo:H`): a
 * venue name alone is not a track — Bendigo races three codes with three clubs, and Warwick is in
 * QLD and in England. Canonical: jurisdiction and code upper-cased, the name trimmed; distinct
 * regardless of case.
 */
function venues(values: string[]): string[] {
  const out = new Map<string, string>();
  for (const raw of values.map((s) => s.trim()).filter(Boolean)) {
    const [jurisdiction = '', name = '', code, extra] = raw.split(':').map((p) => p.trim());
    const valid = /^[A-Za-z0-9_-]{1,32}$/.test(jurisdiction) && name.length >= 1 && name.length <= 200
      && !/[\u0000-\u001f\u007f]/.test(name) && (code === undefined || /^[THGthg]$/.test(code)) && extra === undefined;
    if (!valid) throw bad(`venue ${echo(raw)} is not JURISDICTION:Venue or JURISDICTION:Venue:CODE (e.g. VIC:Flemington, VIC:Bendigo:H; code T, H or G)`);
    const v = [jurisdiction.toUpperCase(), name, ...(code ? [code.toUpperCase()] : [])].join(':');
    if (!out.has(v.toLowerCase())) out.set(v.toLowerCase(), v);
  }
  if (out.size > MAX_CODES) throw bad(`a client has at most ${MAX_CODES} venues (${out.size} given)`);
  return [...out.values()];
}

function view(row: q.ClientRow): ClientView {
  return {
    client_id: row.client_id,
    tenant_id: row.tenant_id,
    name: row.name,
    scopes: row.scopes,
    agencies: row.agencies,
    jurisdictions: row.jurisdictions,
    venues: row.venues,
    status: row.status,
    created_at: row.created_at.toISOString(),
  };
}

export function createTenantService({ db }: { db: Pool }) {
  async function requireTenant(tenantId: string): Promise<q.TenantRecord> {
    const tenant = isUuid(tenantId) ? await q.findTenant(db, tenantId) : undefined;
    if (!tenant) throw new AppError('tenant_not_found', `no tenant with id "${tenantId}"`);
    return tenant;
  }

  return {
    requireTenant,

    /** The client with its secret hash and whether its tenant is disabled, for the token endpoint only (never shown). */
    findClientCredentials: (clientId: string): Promise<(q.ClientRow & { tenant_disabled: boolean }) | undefined> =>
      q.findClientWithTenant(db, clientId),
    revokedClientIds: (): Promise<string[]> => q.revokedClientIds(db),

    /** Every tenant, oldest first. */
    async listTenants(): Promise<{ tenants: TenantView[] }> {
      return { tenants: (await q.listTenants(db)).map(tenantView) };
    },

    async showTenant(tenantId: string): Promise<TenantView> {
      return tenantView(await requireTenant(tenantId));
    },

    /**
     * Disables a tenant: its clients get no new tokens, their tokens are refused (within
     * WAGERLINE_AUTH_REFRESH_SECONDS in every process) and its frontend users are refused.
     * Disabling a disabled tenant changes nothing.
     */
    async disableTenant(tenantId: string): Promise<TenantView & { changed: boolean }> {
      const before = await requireTenant(tenantId);
      const row = (await q.disableTenant(db, before.tenant_id))!;
      return { ...tenantView(row), changed: before.disabled_at === null };
    },

    async createTenant(input: { name: string; currency?: string; timezone?: string }): Promise<Tenant> {
      const name = nameText(input.name, 'name', true)!;
      const currency = currencyCode((input.currency ?? 'AUD').trim());
      const timezone = input.timezone ?? 'Australia/Sydney';
      if (!currency) throw bad(`currency ${echo(input.currency)} is not an active ISO 4217 currency code (such as "AUD", "NZD")`);
      const problem = await timeZoneProblem(db, timezone);
      if (problem) throw bad(problem);
      const row = await q.insertTenant(db, { name, currency, timezone });
      return { tenant_id: row.tenant_id, name: row.name, currency: row.currency, timezone: row.timezone };
    },

    /**
     * Replaces a time zone the database does not know, or reads differently from Intl (an
     * abbreviation such as CET), under the same check as creation: `tenant set-zone` and PUT
     * /admin/tenants/{id}/timezone. A zone both read alike is kept: the racing days and deadlines
     * of the tenant's stored bets were worked out in it.
     */
    async setTimeZone(tenantId: string, zone: string): Promise<TenantView & { previous_timezone: string }> {
      const before = await requireTenant(tenantId);
      const { problem, replaceable } = await zoneChange(db, before.timezone, zone);
      if (problem) throw bad(problem);
      if (!replaceable) {
        throw new AppError('conflict', `tenant ${before.tenant_id}'s time zone "${before.timezone}" is one the database knows and reads as Node.js does: only a zone ` +
          'it does not know or reads differently is replaced (the racing days and deadlines of the bets stored so far were worked out in the current one)');
      }
      const row = await q.replaceTimeZone(db, before.tenant_id, before.timezone, zone);
      if (!row) throw new AppError('conflict', `tenant ${before.tenant_id}'s time zone changed meanwhile: read the tenant again, then replace its zone if it still needs it`);
      return { ...tenantView(row), previous_timezone: before.timezone };
    },

    /** Tenants whose zone the database does not know (uploads and bets refused) or reads differently from Intl (taken): two statements. */
    async tenantsWithFaultyZones(): Promise<{ unknown: TenantView[]; misread: TenantView[] }> {
      const { unknown, misread } = await tenantsByZoneFault(db, await q.listTenants(db));
      return { unknown: unknown.map(tenantView), misread: misread.map(tenantView) };
    },

    async createClient(input: {
      tenantId: string;
      scopes: string[];
      agencies?: string[];
      jurisdictions?: string[];
      venues?: string[];
      name?: string;
    }): Promise<ClientView & { client_secret: string }> {
      await requireTenant(input.tenantId);
      const name = nameText(input.name ?? '', 'name', false);
      const scopes = [...new Set(input.scopes.map((s) => s.trim()).filter(Boolean))];
      if (!scopes.length) throw bad(`scopes must name at least one of ${SCOPES.join(', ')}`);
      const unknown = scopes.find((s) => !(SCOPES as readonly string[]).includes(s));
      if (unknown) throw bad(`scope "${unknown}" is not one of ${SCOPES.join(', ')}`);
      const reach = { jurisdictions: codes(input.jurisdictions ?? [], 'jurisdiction', /^[A-Z0-9_-]{1,32}$/), venues: venues(input.venues ?? []) };
      // An authority sees its jurisdictions, a track owner its venues: one client is one of them.
      if (reach.jurisdictions.length && reach.venues.length) throw bad('a report client has jurisdictions (an authority) or venues (a track owner), not both');
      // Only reports read them: on another client they would be a power it seems to have and has not.
      if ((reach.jurisdictions.length || reach.venues.length) && !scopes.includes('report')) {
        throw bad(`jurisdictions and venues are for report clients: add "report" to the scopes (${scopes.join(', ')}), or leave them out`);
      }
      const agencyCodes = agencies(input.agencies ?? []);
      // Every upload names its bets' source, and a client may upload only for its agencies: without
      // one, each batch it sent would be refused.
      if (scopes.includes('upload') && !agencyCodes.length) {
        throw bad('agencies must name at least one source code for an upload client (the codes it may upload bets for, e.g. TAB)');
      }
      // Only uploads read them, as only reports read jurisdictions and venues.
      if (agencyCodes.length && !scopes.includes('upload')) {
        throw bad(`agencies are for upload clients: add "upload" to the scopes (${scopes.join(', ')}), or leave them out`);
      }
      const secret = generateSecret();
      const row = await q.insertClient(db, {
        tenant_id: input.tenantId,
        client_id: `wl_${randomBytes(12).toString('base64url')}`,
        name,
        secret_hash: await hashSecret(secret),
        scopes,
        agencies: agencyCodes,
        jurisdictions: reach.jurisdictions,
        venues: reach.venues,
      });
      return { ...view(row), client_secret: secret };
    },

    /**
     * The back-office client a request names (its x-api-key): an active client with the backoffice
     * scope, and the tenants it may see; undefined for anything else, without a query for a value
     * no client id can be.
     */
    async backofficeClient(clientId: string): Promise<BackofficeClient | undefined> {
      if (clientId.length === 0 || clientId.length > 100 || clientId.includes('\u0000')) return undefined;
      const row = await q.findClientWithGrants(db, clientId);
      if (!row || row.status !== 'active' || row.tenant_disabled || !row.scopes.includes('backoffice')) return undefined;
      const tenant_ids = [row.tenant_id, ...row.granted.filter((t) => t !== row.tenant_id)];
      return { client_id: row.client_id, tenant_id: row.tenant_id, scopes: row.scopes, tenant_ids };
    },

    /** Sets the tenants a back-office client may see besides its own (replacing any earlier grant). */
    async grantTenants(clientId: string, tenantIds: string[]) {
      const client = clientId.includes('\u0000') ? undefined : await q.findClient(db, clientId);
      if (!client) throw new AppError('client_not_found', `no client with id "${clientId.slice(0, 40)}"`);
      if (!client.scopes.includes('backoffice')) throw bad(`client ${client.client_id} has no backoffice scope: grants are for back-office clients`);
      const wanted = [...new Set(tenantIds.map((t) => t.trim().toLowerCase()).filter((t) => t && t !== client.tenant_id))];
      const notUuid = wanted.findIndex((t) => !isUuid(t));
      if (notUuid >= 0) throw bad(`tenant "${wanted[notUuid]!.slice(0, 40)}" is not a tenant id (a UUID)`);
      const existing = new Set(await q.existingTenants(db, wanted));
      const missing = wanted.find((t) => !existing.has(t));
      if (missing) throw new AppError('tenant_not_found', `no tenant with id "${missing}"`);
      await q.replaceGrants(db, clientId, wanted);
      const granted = (await q.findClientWithGrants(db, clientId))!.granted;
      return { client_id: client.client_id, tenant_id: client.tenant_id, granted, tenants: [client.tenant_id, ...granted] };
    },

    /**
     * The client with the other tenants it is granted, when it belongs to the tenant (the admin API
     * acts on its own tenant's clients only).
     */
    async requireClientOf(tenantId: string, clientId: string): Promise<ClientView & { granted: string[] }> {
      const row = clientId.includes('\u0000') ? undefined : await q.findClientWithGrants(db, clientId);
      if (!row || row.tenant_id !== tenantId.toLowerCase()) throw new AppError('client_not_found', `no client with id "${clientId.slice(0, 40)}" in this tenant`);
      return { ...view(row), granted: row.granted };
    },

    async listClients(tenantId: string): Promise<ClientView[]> {
      await requireTenant(tenantId);
      return (await q.listClients(db, tenantId)).map(view);
    },

    async rotateSecret(clientId: string): Promise<{ client_id: string; client_secret: string }> {
      const secret = generateSecret();
      const row = await q.updateClientSecret(db, clientId, await hashSecret(secret));
      if (!row) throw new AppError('client_not_found', `no client with id "${clientId}"`);
      return { client_id: row.client_id, client_secret: secret };
    },

    async revokeClient(clientId: string): Promise<{ client_id: string; status: 'revoked' }> {
      const row = await q.revokeClient(db, clientId);
      if (!row) throw new AppError('client_not_found', `no client with id "${clientId}"`);
      return { client_id: row.client_id, status: 'revoked' };
    },
  };
}

export type TenantService = ReturnType<typeof createTenantService>;
