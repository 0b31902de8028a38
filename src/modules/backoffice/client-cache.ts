// The back-office clients a process has recently identified, by x-api-key, for a few seconds
// (WAGERLINE_BACKOFFICE_CLIENT_CACHE_SECONDS): every back-office request names its client, and
// reading it — client, status, scopes, tenant, grants — was one statement per request. The price
// is staleness: a client revoked, a tenant disabled or a grant changed is seen by a process within
// the TTL, not at once (docs/auth.md). Only clients found are kept: an unknown key is looked up
// every time, so a client created a moment ago works at once and junk keys cannot fill the cache.
import type { BackofficeClient } from '../tenants/tenants.service.ts';

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
