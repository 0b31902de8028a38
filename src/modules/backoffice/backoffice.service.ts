// The back-office (docs/backoffice.md): who is asking, which tenants they may see, and the two
// operations — a page of bets and a cancel — on the betting module's reads and actions. Transport
// free: the GraphQL adapter (backoffice.graphql.ts) calls it per request, and a subscription or a
// dashboard can call it the same way.
//
// A request names its client in x-api-key (an active client with the backoffice scope). Operations
// on bets also need that client's bearer token with the backoffice scope. A client sees its own
// tenant and the tenants granted to it (`wagerline client grant`), nothing else.
import { AppError } from '../../errors.ts';
import { isUuid } from '../../racing/values.ts';
import type { Principal } from '../auth/tokens.service.ts';
import type { BackofficeBet, BackofficeReads, BetParts, BetsPage } from '../betting/backoffice-reads.ts';
import type { BetActions } from '../betting/bet-actions.ts';
import { whileActive, type BetUpdate, type BetUpdates } from '../betting/bet-updates.ts';
import type { BackofficeClient, TenantService } from '../tenants/tenants.service.ts';
import { characters, unstorable } from '../../http/text-rules.ts';

export const SCOPE = 'backoffice';
/** Longest cancel reason kept (it is shown as metadata.reason). */
export const MAX_REASON = 500;

export interface Caller {
  client: BackofficeClient;
  /** The verified bearer token, or null when the request carried none. */
  principal: Principal | null;
}

export interface TokenVerifier {
  verify(token: string): Promise<Principal>;
}

export interface BackofficeServiceDeps {
  tenants: Pick<TenantService, 'backofficeClient'>;
  tokens: TokenVerifier;
  reads: BackofficeReads;
  bets: Pick<BetActions, 'cancelBet'>;
  /** Live changes of bets, from every process (the betUpdated subscription). */
  updates: Pick<BetUpdates, 'stream'>;
}

export interface GetBetsInput {
  tenant: { ids: string[]; bet_ids?: string[] | null };
  pagination?: { last_id?: string | null; limit?: number | null } | null;
}

export interface CancelResult {
  id: string;
  status: string;
  previous_status: string;
  changed: boolean;
  bet: BackofficeBet;
}

function unauthenticated(reason: string, message: string, bearer = false): AppError {
  if (!bearer) return new AppError('api_key_invalid', message, { extensions: { reason } });
  return new AppError('invalid_token', message, {
    extensions: { reason },
    headers: { 'www-authenticate': `Bearer realm="wagerline", error="invalid_token", error_description="${message.replaceAll('"', "'")}"` },
  });
}

function tokenReason(message: string): string {
  if (/expired/.test(message)) return 'token_expired';
  if (/revoked/.test(message)) return 'client_revoked';
  return 'token_invalid';
}

export function createBackofficeService(deps: BackofficeServiceDeps) {
  async function principalOf(authorization: string | undefined, client: BackofficeClient): Promise<Principal | null> {
    if (authorization === undefined) return null;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) throw unauthenticated('token_invalid', 'the Authorization header is not "Bearer <access token>"', true);
    let principal: Principal;
    try {
      principal = await deps.tokens.verify(match[1]!);
    } catch (error) {
      const message = error instanceof Error ? error.message : 'the token is invalid';
      throw unauthenticated(tokenReason(message), message, true);
    }
    if (principal.clientId !== client.client_id) throw unauthenticated('token_client_mismatch', 'the access token belongs to another client than x-api-key', true);
    if (!principal.scopes.includes(SCOPE)) {
      throw new AppError('insufficient_scope', `the access token lacks the "${SCOPE}" scope`, {
        extensions: { reason: 'scope' },
        headers: { 'www-authenticate': `Bearer realm="wagerline", error="insufficient_scope", scope="${SCOPE}"` },
      });
    }
    return principal;
  }

  /** The tenants of `ids` when the caller may see every one of them; FORBIDDEN (and nothing read) otherwise. */
  function allowedTenants(caller: Caller, ids: string[]): string[] {
    const notUuid = ids.findIndex((id) => !isUuid(id));
    if (notUuid >= 0) throw new AppError('bad_request', `tenant id "${String(ids[notUuid]).slice(0, 40)}" is not a UUID`);
    const visible = new Set(caller.client.tenant_ids);
    const other = ids.find((id) => !visible.has(id.toLowerCase()));
    if (other !== undefined) {
      throw new AppError('tenant_forbidden', `tenant ${other} is not granted to client ${caller.client.client_id}`, { extensions: { reason: 'tenant_not_granted' } });
    }
    return ids.map((id) => id.toLowerCase());
  }

  /** The caller's token, required for operations on bets. */
  function requireToken(caller: Caller): Principal {
    if (!caller.principal) throw unauthenticated('token_missing', 'an access token is required: Authorization: Bearer <token> from POST /oauth/token', true);
    return caller.principal;
  }

  return {
    /** Who is asking: refused (UNAUTHENTICATED or FORBIDDEN) before anything is read or run. */
    async identify(headers: { apiKey: string | undefined; authorization: string | undefined }): Promise<Caller> {
      if (!headers.apiKey) throw unauthenticated('api_key_missing', 'x-api-key is required: the client_id of a back-office client');
      const client = await deps.tenants.backofficeClient(headers.apiKey);
      if (!client) throw unauthenticated('api_key_unknown', 'x-api-key is not the client_id of an active back-office client');
      return { client, principal: await principalOf(headers.authorization, client) };
    },

    /** The caller's token: UNAUTHENTICATED (token_missing) without one. */
    requireToken,

    /** A page of bets, read with the `parts` the caller will show (the others are read on demand). */
    async getBets(caller: Caller, input: GetBetsInput, parts: BetParts = {}): Promise<BetsPage> {
      requireToken(caller);
      return deps.reads.bets({
        tenantIds: allowedTenants(caller, input.tenant.ids), betIds: input.tenant.bet_ids ?? null,
        lastId: input.pagination?.last_id ?? null, limit: input.pagination?.limit ?? null,
      }, parts);
    },

    /** Cancels a bet (bet-actions.ts): a second cancel changes nothing and sends nothing. */
    async cancelBet(caller: Caller, ref: { id: string; tenant_id: string }, reason: string | null | undefined): Promise<CancelResult> {
      requireToken(caller);
      const [tenantId] = allowedTenants(caller, [ref.tenant_id]);
      if (!isUuid(ref.id)) throw new AppError('bad_request', `bet.id must be a bet's UUID, got ${JSON.stringify(String(ref.id as unknown).slice(0, 40))}`);
      const why = reason?.trim() || null;
      if (why !== null && (characters(why) > MAX_REASON || unstorable(why))) {
        throw new AppError('bad_request', `reason must be at most ${MAX_REASON} characters, without U+0000 or an unpaired surrogate`);
      }
      const done = await deps.bets.cancelBet({ tenantId: tenantId!, betId: ref.id }, { reason: why, by: `client:${caller.client.client_id}` });
      const { bets: [bet] } = await deps.reads.bets({ tenantIds: [done.tenant_id], betIds: [done.bet_id], limit: 1 });
      return { id: done.bet_id, status: done.status.toUpperCase(), previous_status: done.previous_status.toUpperCase(), changed: done.changed, bet: bet! };
    },

    /**
     * The changes of bets of `tenantIds` (default: every tenant the caller sees) from now on. Each
     * tenant asked for must be the caller's own or granted (FORBIDDEN otherwise); the token is
     * required, as for getBets. The tenants are fixed when the subscription starts; a client revoked
     * or a tenant disabled meanwhile ends it at its next update.
     */
    async betUpdates(caller: Caller, tenantIds: string[] | null | undefined): Promise<AsyncIterableIterator<BetUpdate>> {
      requireToken(caller);
      if (tenantIds && tenantIds.length === 0) throw new AppError('bad_request', 'tenant_ids names no tenant; omit it for every tenant the client sees');
      const tenants = new Set(tenantIds ? allowedTenants(caller, tenantIds) : caller.client.tenant_ids);
      const updates = await deps.updates.stream((u) => tenants.has(u.tenant_id));
      // Each update is checked against the client as a request would see it now: revoked, its tenant
      // disabled, or a tenant of the subscription no longer granted, the subscription ends.
      return whileActive(updates, async () => {
        const current = await deps.tenants.backofficeClient(caller.client.client_id);
        return current !== undefined && [...tenants].every((t) => current.tenant_ids.includes(t));
      });
    },

    /** The bet an update announces, as getBets reads it (null if it is not of a tenant the caller sees). */
    async betOf(caller: Caller, update: Pick<BetUpdate, 'tenant_id' | 'bet_id'>): Promise<BackofficeBet | null> {
      if (!caller.client.tenant_ids.includes(update.tenant_id)) return null;
      const { bets: [bet] } = await deps.reads.bets({ tenantIds: [update.tenant_id], betIds: [update.bet_id], limit: 1 });
      return bet ?? null;
    },

    /** A page's legs, wallet calls and history, batched (the adapter's loaders call these). */
    legs: (bets: BackofficeBet[]) => deps.reads.legs(bets),
    walletCalls: (bets: BackofficeBet[]) => deps.reads.walletCalls(bets),
    history: (bets: BackofficeBet[]) => deps.reads.history(bets),
  };
}

export type BackofficeService = ReturnType<typeof createBackofficeService>;

/*
 * The back-office clients a process has recently identified, by x-api-key, for a few seconds
 * (WAGERLINE_BACKOFFICE_CLIENT_CACHE_SECONDS): every back-office request names its client, and
 * reading it — client, status, scopes, tenant, grants — is a statement of its own. The price
 * is staleness: a client revoked, a tenant disabled or a grant changed is seen by a process within
 * the TTL, not at once (docs/auth.md). Only clients found are kept: an unknown key is looked up
 * every time, so a client created a moment ago works at once and junk keys cannot fill the cache.
 */
type Lookup = (apiKey: string) => Promise<BackofficeClient | undefined>;

export interface ClientCacheOptions {
  /** How long a client found is used without asking again; 0 asks every time. */
  ttlMs: number;
  clock: () => Date;
  /** Most clients kept: far more than a deployment has, a bound against surprises. */
  max?: number;
}

/** `lookup`, answered from the cache while a client found is younger than the TTL. */
export function cachedClientLookup(lookup: Lookup, { ttlMs, clock, max = 10_000 }: ClientCacheOptions): Lookup {
  if (ttlMs <= 0) return lookup;
  // The lookup in flight or done, so requests arriving together for one key share one statement.
  const entries = new Map<string, { expires: number; client: Promise<BackofficeClient | undefined> }>();
  return (apiKey) => {
    const now = clock().getTime();
    const entry = entries.get(apiKey);
    if (entry && entry.expires > now) return entry.client;
    entries.delete(apiKey);
    const client = lookup(apiKey);
    // Oldest first in a Map: dropping the first entry keeps the newest.
    if (entries.size >= max) entries.delete(entries.keys().next().value!);
    entries.set(apiKey, { expires: now + ttlMs, client });
    // Nothing found, or the lookup failed: not kept, the next request asks again.
    const forget = () => { if (entries.get(apiKey)?.client === client) entries.delete(apiKey); };
    client.then((found) => { if (!found) forget(); }, forget);
    return client;
  };
}
