// Tokens this process has verified lately, so that a user placing bets in a row does not cost an
// RS256 signature check per request (about 0.3 ms of CPU each, the largest single cost of
// authenticating). Only successes are kept, for a short time (real elapsed time, as the key set's
// own cache), keyed by the tenant's configuration version and the exact token text; the times the
// token carries (exp, nbf, with the leeway) are checked again at every use on the injected clock,
// so a cached token is refused as `expired` exactly when a fresh verification would refuse it.
// Bounded in number: when full, the oldest entry goes first. A token is kept as its SHA-256, so an
// entry costs about 750 bytes whatever the token's size (10,000 of them, the service's bound: 8 MB).
import { createHash } from 'node:crypto';

export interface VerifiedTokenCacheOptions {
  /** How long a verification is reused (real elapsed ms); 0 keeps nothing. */
  ttlMs: number;
  /** Most tokens kept at once. */
  maxEntries: number;
  leewaySeconds: number;
}

interface Verified {
  userId: string;
  /** Seconds since the epoch, from the verified claims. */
  exp: number;
  nbf: number | undefined;
  verifiedAt: number;
}

export function createVerifiedTokenCache(options: VerifiedTokenCacheOptions) {
  const entries = new Map<string, Verified>();
  let hits = 0;

  const keyOf = (tenantId: string, version: string, token: string) =>
    `${tenantId}\n${version}\n${createHash('sha256').update(token).digest('base64')}`;

  return {
    /** The user id and exp of a token verified within ttlMs for this configuration and still in its times, or undefined. */
    get(tenantId: string, version: string, token: string, now: Date): { userId: string; exp: number } | undefined {
      const key = keyOf(tenantId, version, token);
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (performance.now() - entry.verifiedAt >= options.ttlMs) {
        entries.delete(key);
        return undefined;
      }
      // jose's own rule, to the second: expired when exp <= now - leeway, early when nbf > now + leeway.
      const seconds = Math.floor(now.getTime() / 1000);
      if (entry.exp <= seconds - options.leewaySeconds) return undefined;
      if (entry.nbf !== undefined && entry.nbf > seconds + options.leewaySeconds) return undefined;
      hits += 1;
      return { userId: entry.userId, exp: entry.exp };
    },

    /** Keeps a successful verification. */
    set(tenantId: string, version: string, token: string, verified: { userId: string; exp: number; nbf: number | undefined }): void {
      if (options.ttlMs <= 0 || options.maxEntries <= 0) return;
      const key = keyOf(tenantId, version, token);
      entries.delete(key);
      if (entries.size >= options.maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(key, { ...verified, verifiedAt: performance.now() });
    },

    /** How many verifications were answered from the cache, and how many are kept (for tests and metrics). */
    stats(): { hits: number; size: number } {
      return { hits, size: entries.size };
    },
  };
}

export type VerifiedTokenCache = ReturnType<typeof createVerifiedTokenCache>;
