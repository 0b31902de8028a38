// Access tokens of the client-credentials grant (RFC 6749 §4.4): JWTs signed by the service,
// carrying client_id, tenant_id and scope, verified from an in-process key cache (no database
// round trip per request). Each process reloads the keys and the revoked clients every
// WAGERLINE_AUTH_REFRESH_SECONDS, so a revoked client is refused everywhere within that time.
import { randomUUID } from 'node:crypto';
import { SignJWT, createLocalJWKSet, errors as joseErrors, jwtVerify, type JWK } from 'jose';
import type { Pool } from '../../db/pool.ts';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { TenantService } from '../tenants/tenants.service.ts';
import { AppError, echo } from '../../errors.ts';
import { failureChanges, type EventLog } from '../../log.ts';
import { decoyHash, verifySecret } from './secret-hash.ts';
import { ALG, loadSigningKeys, rotateSigningKey, type SigningKey } from './signing-keys.ts';

const ISSUER = 'wagerline';
const AUDIENCE = 'wagerline';

export interface Principal {
  clientId: string;
  tenantId: string;
  scopes: string[];
}

/** An error of the token endpoint, in RFC 6749 §5.2's vocabulary. */
export class OAuthError extends Error {
  constructor(
    readonly error: 'invalid_request' | 'invalid_client' | 'unsupported_grant_type' | 'invalid_scope',
    description: string,
  ) {
    super(description);
  }

  get status(): number {
    return this.error === 'invalid_client' ? 401 : 400;
  }
}

export class TokenError extends Error {}

export interface TokenServiceDeps {
  db: Pool;
  /** Where clients and their revocations are read. */
  clients: Pick<TenantService, 'findClientCredentials' | 'revokedClientIds'>;
  box: SecretBox;
  ttlSeconds: number;
  refreshSeconds: number;
  clock?: () => Date;
  /** Where a failed background refresh is told (revocations stop reaching this process meanwhile). */
  log?: EventLog;
}

export function createTokenService({ db, clients, box, ttlSeconds, refreshSeconds, clock = () => new Date(), log }: TokenServiceDeps) {
  let keys: SigningKey[] = [];
  let jwks = createLocalJWKSet({ keys: [] });
  let revoked = new Set<string>();
  let lastAttempt = 0;
  let timer: NodeJS.Timeout | undefined;
  // Refreshes overlap (the timer on a slow database, one started by an unknown kid) and finish in
  // any order: one that started earlier read older rows, and applied last it would accept again a
  // client revoked meanwhile (or forget a new key). Only a refresh newer than the last applied counts.
  let started = 0;
  let applied = 0;

  async function refresh(): Promise<void> {
    const generation = ++started;
    const [loaded, revokedIds] = await Promise.all([
      loadSigningKeys(db, box, ttlSeconds),
      clients.revokedClientIds(),
    ]);
    if (generation < applied) return;
    applied = generation;
    keys = loaded;
    jwks = createLocalJWKSet({ keys: loaded.map((k) => k.publicJwk) });
    revoked = new Set(revokedIds);
  }

  async function issue(principal: Principal): Promise<{ access_token: string; expires_in: number; scope: string }> {
    const active = keys.find((k) => k.privateKey);
    if (!active?.privateKey) throw new Error('no active signing key loaded');
    const now = Math.floor(clock().getTime() / 1000);
    const scope = principal.scopes.join(' ');
    const token = await new SignJWT({ client_id: principal.clientId, tenant_id: principal.tenantId, scope })
      .setProtectedHeader({ alg: ALG, kid: active.kid, typ: 'at+jwt' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject(principal.clientId)
      .setJti(randomUUID())
      .setIssuedAt(now)
      .setExpirationTime(now + ttlSeconds)
      .sign(active.privateKey);
    return { access_token: token, expires_in: ttlSeconds, scope };
  }

  return {
    refresh,
    issue,

    /**
     * Makes a new signing key active (signing-keys.ts) and signs with it at once in this process;
     * other processes take it up at their next refresh, and until then still sign with the old key,
     * which keeps verifying until its tokens expire.
     */
    async rotateKey(): Promise<{ kid: string }> {
      const kid = await rotateSigningKey(db, box);
      await refresh();
      return { kid };
    },

    /** Loads keys and revocations now, then keeps them fresh in the background. */
    async start(): Promise<void> {
      await refresh();
      // A failed refresh keeps the keys and revocations last read: told, since a client revoked
      // meanwhile stays accepted by this process until a refresh succeeds. While the database is
      // away every refresh fails alike: the first failure and the recovery are logged.
      const refreshes = failureChanges((message, fields, level) => log?.(message, { module: 'auth', ...fields }, level), {
        failed: 'token keys and revocations could not be refreshed; the last ones read stay in force',
        recovered: 'token keys and revocations refreshed again',
      });
      // One background refresh at a time: on a database that does not answer they would pile up,
      // and one that failed late after a newer one succeeded would read as a new outage.
      let running: Promise<void> | undefined;
      timer = setInterval(() => {
        running ??= refresh().then(() => refreshes.succeeded(), (error: unknown) => refreshes.failed(error)).finally(() => {
          running = undefined;
        });
      }, refreshSeconds * 1000);
      timer.unref();
    },

    stop(): void {
      clearInterval(timer);
    },

    publicKeys(): JWK[] {
      return keys.map((k) => k.publicJwk);
    },

    /** Checks client credentials and the requested scope, then issues a token. */
    async grant(clientId: string, clientSecret: string, requestedScope?: string) {
      // No client id holds U+0000 (PostgreSQL refuses the byte): unknown, without a query.
      const client = clientId.includes('\u0000') ? undefined : await clients.findClientCredentials(clientId);
      const ok = await verifySecret(clientSecret, client?.secret_hash ?? (await decoyHash()));
      // A client of a disabled tenant is refused like a revoked one.
      if (!client || !ok || client.status !== 'active' || client.tenant_disabled) {
        throw new OAuthError('invalid_client', 'client authentication failed');
      }
      let scopes = client.scopes;
      if (requestedScope !== undefined && requestedScope.trim() !== '') {
        const wanted = [...new Set(requestedScope.trim().split(/\s+/))];
        const notAllowed = wanted.find((s) => !client.scopes.includes(s));
        if (notAllowed) throw new OAuthError('invalid_scope', `scope ${echo(notAllowed)} is not granted to this client`);
        scopes = wanted;
      }
      return issue({ clientId: client.client_id, tenantId: client.tenant_id, scopes });
    },

    /** Verifies a bearer token; throws TokenError with a reason when it is not acceptable. */
    async verify(token: string): Promise<Principal> {
      const header = token.split('.')[0] ?? '';
      let kid: unknown;
      try {
        kid = JSON.parse(Buffer.from(header, 'base64url').toString()).kid;
      } catch {
        throw new TokenError('the token is not a JWT');
      }
      // A key rotated by another process since our last refresh: reload at most once a second
      // (attempts counted, not successes: with the database down, not one reload per request).
      if (typeof kid === 'string' && !keys.some((k) => k.kid === kid) && Date.now() - lastAttempt > 1000) {
        lastAttempt = Date.now();
        try {
          await refresh();
        } catch (cause) {
          throw new AppError('service_unavailable', 'the token\'s signing key could not be loaded; try again shortly', { headers: { 'retry-after': '1' }, cause });
        }
      }
      let payload;
      try {
        ({ payload } = await jwtVerify(token, jwks, {
          issuer: ISSUER,
          audience: AUDIENCE,
          algorithms: [ALG],
          currentDate: clock(),
        }));
      } catch (error) {
        if (error instanceof joseErrors.JWTExpired) throw new TokenError('the token has expired');
        throw new TokenError('the token is invalid');
      }
      const clientId = String(payload.client_id ?? '');
      if (revoked.has(clientId)) throw new TokenError('the client of this token has been revoked');
      return {
        clientId,
        tenantId: String(payload.tenant_id ?? ''),
        scopes: typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [],
      };
    },
  };
}

export type TokenService = ReturnType<typeof createTokenService>;
