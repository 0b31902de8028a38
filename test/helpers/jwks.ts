// A tenant's identity provider for tests: an RS256 key pair, its JWKS served over real HTTP on
// 127.0.0.1, and user tokens signed with it as spec 5.2 describes them.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';

export interface TestIdentityProvider {
  url: string;
  clientId: string;
  /** A user token: claims client_id, aud = username = userId, token_use access; valid for an hour. */
  token(userId?: string, overrides?: { claims?: Record<string, unknown>; expiresIn?: string }): Promise<string>;
  close(): Promise<void>;
}

export async function startIdentityProvider(clientId = 'frontend-app'): Promise<TestIdentityProvider> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const kid = randomUUID();
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, use: 'sig', alg: 'RS256' };
  const server: Server = createServer((req, res) => {
    if (req.url === '/.well-known/jwks.json') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    clientId,
    async token(userId = randomUUID(), overrides = {}) {
      return new SignJWT({ client_id: clientId, token_use: 'access', username: userId, ...overrides.claims })
        .setProtectedHeader({ alg: 'RS256', kid })
        .setAudience(userId)
        .setIssuedAt()
        .setExpirationTime(overrides.expiresIn ?? '1h')
        .sign(privateKey);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
