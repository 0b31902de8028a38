// A tenant's identity provider for tests: a real JWKS on 127.0.0.1 (never an HTTP mock), RSA keys
// that can be rotated, a count of fetches (to see jose's cache and cooldown), faults (hang, 500,
// not JSON), and a signer that builds tokens right or wrong in exactly one way.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, exportSPKI, generateKeyPair, type CryptoKey, type JWK, type JWTPayload } from 'jose';

export interface TestKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK;
}

export type JwksFault = 'none' | 'hang' | 'status500' | 'not-json';

export async function testKey(alg: 'RS256' | 'ES256' | 'PS256' = 'RS256', kid: string = randomUUID()): Promise<TestKey> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, publicKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

export interface TokenOptions {
  /** Claims to add or override; `undefined` removes a claim. */
  claims?: Record<string, unknown>;
  /** Seconds from `now` (default: 1 h); null: no exp. */
  expIn?: number | null;
  /** Seconds from `now`; omitted: no nbf. */
  nbfIn?: number;
  now?: Date;
  key?: TestKey;
  /** Header overrides (alg, kid); `kid: undefined` removes it. */
  header?: Record<string, unknown>;
}

export class TestJwks {
  keys: TestKey[] = [];
  fetches = 0;
  fault: JwksFault = 'none';
  /** How long each answer waits (a slow identity provider: users are authenticated that much later). */
  delayMs = 0;
  url = '';
  private server: Server | undefined;

  constructor(readonly clientId = 'test-frontend') {}

  static async start(clientId?: string): Promise<TestJwks> {
    const jwks = new TestJwks(clientId);
    jwks.keys = [await testKey()];
    await jwks.listen();
    return jwks;
  }

  private async listen(): Promise<void> {
    this.server = createServer((req, res) => {
      if (req.url !== '/.well-known/jwks.json') return void res.writeHead(404).end();
      this.fetches++;
      if (this.fault === 'hang') return; // never answers: the verifier's timeout must fire
      setTimeout(() => {
        if (this.fault === 'status500') return void res.writeHead(500).end('{}');
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(this.fault === 'not-json' ? '<html>' : JSON.stringify({ keys: this.keys.map((k) => k.publicJwk) }));
      }, this.delayMs);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/.well-known/jwks.json`;
  }

  get key(): TestKey {
    return this.keys[0]!;
  }

  /** The first key's public half in PEM (what an HS256 key-confusion attack uses as the secret). */
  publicPem(): Promise<string> {
    return exportSPKI(this.key.publicKey);
  }

  /** A valid user token, then made wrong in the one way `options` asks. */
  async token(userId: string = randomUUID(), options: TokenOptions = {}): Promise<string> {
    const key = options.key ?? this.key;
    const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
    const claims: JWTPayload = { client_id: this.clientId, token_use: 'access', username: userId, aud: userId, iat: now };
    const expIn = options.expIn === undefined ? 3600 : options.expIn;
    if (expIn !== null) claims.exp = now + expIn;
    if (options.nbfIn !== undefined) claims.nbf = now + options.nbfIn;
    for (const [name, value] of Object.entries(options.claims ?? {})) {
      if (value === undefined) delete claims[name];
      else claims[name] = value;
    }
    const header: Record<string, unknown> = { alg: key.alg, kid: key.kid, ...options.header };
    if ('kid' in (options.header ?? {}) && options.header!.kid === undefined) delete header.kid;
    return new SignJWT(claims).setProtectedHeader(header as { alg: string }).sign(key.privateKey);
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

/** An unsigned token (alg none), as an attacker would forge it. */
export function unsignedToken(header: Record<string, unknown>, claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ ...header, alg: 'none' })}.${part(claims)}.`;
}
