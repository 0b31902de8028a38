// Frontend users (spec 5.2): per tenant, how its frontend's users are authenticated, and the check
// every frontend request goes through. jwt: an RS256 token from the tenant's identity provider,
// verified here. custom: an opaque token and the host.state.user metadata, both forwarded in
// reserve (spec 2.4), whose success is the verification. See docs/frontend.md.
import type { Pool } from '../../db/pool.ts';
import { AppError, fieldNamer, type FieldNames } from '../../errors.ts';
import type { TenantService } from '../tenants/tenants.service.ts';
import { bearerOf, hostStateUserOf, tenantIdOf, unauthenticated, type Headers, type UserMetadata } from './user-auth.headers.ts';
import * as q from './user-auth.queries.ts';
import { createUserJwtVerifier, LEEWAY_SECONDS, type JwtTenant } from './user-jwt.ts';
import { takesBetsIn } from '../../racing/currencies.ts';
import { isUuid } from '../../racing/values.ts';
import { platformDefault, publicOnly, requirePublicHost } from '../../net/private-network.ts';
import { redactUrlCredentials } from '../../net/redact-url.ts';

export type UserAuthMode = 'jwt' | 'custom';

/**
 * `privateNetwork`: whether the JWKS URL may lead to private addresses, as for a wallet
 * (SetWalletInput): true on the platform's word; false for a tenant's own admin token; omitted,
 * an IP address is taken as written and a host name must resolve to public addresses.
 */
export type SetUserAuthInput = ({ mode: 'jwt'; jwksUrl: string; clientId: string } | { mode: 'custom' }) & {
  privateNetwork?: boolean;
  /** Whose names refusals use: the CLI's options (default) or the admin API's body fields. */
  names?: FieldNames;
};

/** A tenant's user-auth configuration, as `tenant set-auth` prints it. */
export interface UserAuthView {
  tenant_id: string;
  mode: UserAuthMode;
  jwks_url: string | null;
  client_id: string | null;
  private_network: boolean;
  updated_at: string;
}

/** An authenticated frontend user, with what reserve forwards (token and metadata, spec 2.4). */
export interface FrontendUser {
  tenantId: string;
  userId: string;
  mode: UserAuthMode;
  token: string;
  metadata: UserMetadata;
  /** jwt: how long the token stays valid from now, its leeway included; null in custom mode (no expiry known). */
  expiresInMs: number | null;
  /** Whether the database converts times in the tenant's zone (as read with the tenant, within configTtlMs): its bets need it. */
  tenantTimezoneUsable: boolean;
}

export interface UserAuthServiceDeps {
  db: Pool;
  tenants: Pick<TenantService, 'requireTenant'>;
  clock?: () => Date;
  /** Least time between JWKS fetches caused by unknown kids (default 30 s). */
  jwksCooldownMs?: number;
  /** Bound on one JWKS fetch (default 3 s). */
  jwksTimeoutMs?: number;
  /** How long a process reuses a tenant's configuration before reading it again (default 5 s). */
  configTtlMs?: number;
  /** How long a verified user token is reused without checking its signature again (default 60 s; 0: never). */
  verifiedTokenTtlMs?: number;
  /** WAGERLINE_PRIVATE_NETWORK=any: every tenant's JWKS may be at any address. */
  anyAddress?: boolean;
  /** Operator-facing events (a tenant's JWKS unavailable). */
  log?: (message: string, fields?: Record<string, unknown>) => void;
}

interface Loaded {
  row: q.UserAuthRow;
  tenantName: string;
  timezoneUsable: boolean;
  loadedAt: number;
}

const bad = (message: string) => new AppError('bad_request', message);
type Namer = ReturnType<typeof fieldNamer>;

function viewOf(row: q.UserAuthRow): UserAuthView {
  return {
    tenant_id: row.tenant_id,
    mode: row.mode,
    jwks_url: row.jwks_url,
    client_id: row.client_id,
    private_network: row.private_network,
    updated_at: row.updated_at.toISOString(),
  };
}

function checkJwksUrl(raw: unknown, n: Namer): string {
  if (typeof raw !== 'string' || !raw.trim()) throw bad(`${n('mode')} jwt needs ${n('jwks_url')}: the URL of the tenant's JWKS (e.g. https://idp.example.com/.well-known/jwks.json)`);
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw bad(`${n('jwks_url')} "${redactUrlCredentials(raw)}" is not a URL (expected e.g. https://idp.example.com/.well-known/jwks.json)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw bad(`${n('jwks_url')} must use https:// (or http:// for a local JWKS), got "${url.protocol}"`);
  if (url.username || url.password) throw bad(`${n('jwks_url')} must not carry credentials`);
  if (url.hash) throw bad(`${n('jwks_url')} must not carry a fragment`);
  return url.toString();
}

function checkClientId(raw: unknown, n: Namer): string {
  if (typeof raw !== 'string' || !raw.trim()) throw bad(`${n('mode')} jwt needs ${n('client_id')}: the client_id claim the tenant's tokens carry`);
  const id = raw.trim();
  if (id.length > 200 || /[\s"]/.test(id)) throw bad(`${n('client_id')} must be 1 to 200 characters, without spaces or quotes`);
  return id;
}

/** Checks set-auth's input, untyped at the CLI's edge, into a row. */
function rowOf(tenantId: string, input: Record<string, unknown>, n: Namer): Omit<q.UserAuthRow, 'updated_at'> {
  if (input.mode === 'custom') {
    if (input.jwksUrl !== undefined || input.clientId !== undefined) throw bad(`${n('jwks_url')} and ${n('client_id')} belong to ${n('mode')} jwt; custom mode takes neither`);
    return { tenant_id: tenantId, mode: 'custom', jwks_url: null, client_id: null, private_network: false };
  }
  if (input.mode === 'jwt') {
    const jwksUrl = checkJwksUrl(input.jwksUrl, n);
    const asked = input.privateNetwork;
    const private_network = typeof asked === 'boolean' ? asked : platformDefault(jwksUrl);
    return { tenant_id: tenantId, mode: 'jwt', jwks_url: jwksUrl, client_id: checkClientId(input.clientId, n), private_network };
  }
  throw bad(`${n('mode')} must be jwt or custom, got ${JSON.stringify(input.mode)}`);
}

function requireUuid(tenantId: string): string {
  if (!isUuid(tenantId)) throw bad(`tenant id "${tenantId}" is not a UUID`);
  return tenantId.toLowerCase();
}

export function createUserAuthService(deps: UserAuthServiceDeps) {
  const { db, tenants } = deps;
  const clock = deps.clock ?? (() => new Date());
  const ttl = deps.configTtlMs ?? 5000;
  const loaded = new Map<string, Loaded>();
  const verifier = createUserJwtVerifier({
    clock,
    isOtherTenantsClientId: (tenantId, clientId) => q.clientIdOfOtherTenant(db, tenantId, clientId),
    cooldownMs: deps.jwksCooldownMs ?? 30_000,
    timeoutMs: deps.jwksTimeoutMs ?? 3000,
    // A key removed from the JWKS stops verifying within 10 minutes: the key set is refetched
    // after 9, and a token verified with it just before is reused for at most 1 more.
    cacheMaxAgeMs: 9 * 60_000,
    verifiedTtlMs: deps.verifiedTokenTtlMs ?? 60_000,
    verifiedMaxEntries: 10_000,
    ...(deps.log && { log: deps.log }),
  });

  /**
   * The tenant's configuration, name and whether its zone is usable, reused for configTtlMs: a
   * change made by another process is seen within that time (this process's own set-auth at once).
   * Unconfigured is not cached.
   */
  async function configOf(tenantId: string): Promise<Loaded> {
    const cached = loaded.get(tenantId);
    // Real elapsed time, not the injected clock: this is a cache of this process, not a rule on tokens.
    if (cached && performance.now() - cached.loadedAt < ttl) return cached;
    const tenant = await tenants.requireTenant(tenantId).catch((error: unknown) => {
      if (error instanceof AppError && error.code === 'tenant_not_found') throw unauthenticated('tenant_unknown', 'X-Tenant-Id names no tenant');
      throw error;
    });
    if (tenant.disabled_at) {
      loaded.delete(tenantId);
      throw unauthenticated('tenant_disabled', 'this tenant is disabled');
    }
    const row = await q.findUserAuth(db, tenantId);
    if (!row) {
      loaded.delete(tenantId);
      throw unauthenticated('tenant_not_configured', 'this tenant has no frontend user authentication configured (wagerline tenant set-auth)');
    }
    const entry = { row, tenantName: tenant.name, timezoneUsable: tenant.timezone_usable, loadedAt: performance.now() };
    loaded.set(tenantId, entry);
    return entry;
  }

  async function authenticateJwt(tenantId: string, token: string, { row, tenantName, timezoneUsable }: Loaded): Promise<FrontendUser> {
    const tenant: JwtTenant = {
      tenantId, jwksUrl: row.jwks_url!, clientId: row.client_id!, version: row.updated_at.toISOString(),
      publicOnly: publicOnly(row.private_network, deps.anyAddress),
    };
    const { userId, exp } = await verifier.verify(token, tenant);
    // Verified: its exp can be trusted (a live subscription is closed when it passes).
    const expiresInMs = (exp + LEEWAY_SECONDS) * 1000 - clock().getTime();
    // jwt tokens carry no host.state.user: the metadata reserve forwards is built from the claims.
    return {
      tenantId, userId, mode: 'jwt', token, metadata: { userId, brandName: tenantName, brandUserId: userId, data: '{}' }, expiresInMs,
      tenantTimezoneUsable: timezoneUsable,
    };
  }

  return {
    /**
     * Whether the tenant still admits its frontend users (not disabled, user auth configured), as
     * authenticate sees it (within the configuration cache): a running subscription asks.
     */
    async admits(tenantId: string): Promise<boolean> {
      return configOf(tenantId).then(() => true, (error: unknown) => {
        if (error instanceof AppError && error.code === 'user_unauthenticated') return false;
        throw error;
      });
    },

    /** Configures how a tenant's frontend users authenticate (wagerline tenant set-auth). */
    async setAuth(tenantId: string, input: SetUserAuthInput): Promise<UserAuthView> {
      const id = requireUuid(tenantId);
      const n = fieldNamer(input.names);
      const values = rowOf(id, input as unknown as Record<string, unknown>, n);
      const { currency } = await tenants.requireTenant(id);
      if (!takesBetsIn(currency)) {
        throw bad(`the tenant's currency ${currency} has no hundredths: bets are taken and paid in hundredths of the currency, so it cannot take bets from frontend users (uploads in ${currency} are not affected)`);
      }
      if (values.jwks_url && publicOnly(values.private_network, deps.anyAddress)) await requirePublicHost(values.jwks_url, n('jwks_url'));
      const row = await q.upsertUserAuth(db, values);
      loaded.delete(id);
      return viewOf(row);
    },

    /** The tenant's configuration, or null when it has none. */
    async getAuth(tenantId: string): Promise<UserAuthView | null> {
      const id = requireUuid(tenantId);
      await tenants.requireTenant(id);
      const row = await q.findUserAuth(db, id);
      return row ? viewOf(row) : null;
    },

    /**
     * Authenticates a frontend request from its headers: authorization (Bearer), x-tenant-id and,
     * in custom mode, x-host-state-user. Throws AppError user_unauthenticated (401, with
     * extensions.reason), user_auth_unavailable (503, the tenant's JWKS cannot be fetched) or
     * bad_request (X-Tenant-Id missing or not a UUID).
     */
    async authenticate(headers: Headers): Promise<FrontendUser> {
      const tenantId = tenantIdOf(headers);
      const token = bearerOf(headers);
      const config = await configOf(tenantId);
      if (config.row.mode === 'jwt') return authenticateJwt(tenantId, token, config);
      const metadata = hostStateUserOf(headers);
      return { tenantId, userId: metadata.userId, mode: 'custom', token, metadata, expiresInMs: null, tenantTimezoneUsable: config.timezoneUsable };
    },

    /** jwt mode: how many verifications were answered by a token verified lately, and how many are kept. */
    verifiedTokenStats: () => verifier.verifiedStats(),
  };
}

export type UserAuthService = ReturnType<typeof createUserAuthService>;
