// A development identity provider for tenant frontends (docs/frontend.md): a fresh RSA key, its
// public half served as a JWKS, and RS256 user tokens shaped as spec 5.2 requires (client_id,
// aud = username = the user's UUID, token_use access). It lets the quick start and the tests play
// a tenant frontend without a real identity provider. Never for production: anyone who can reach
// it can mint a token for any user.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import { isUuid } from '../../racing/values.ts';
import { listen } from '../listen.ts';

export const JWKS_PATH = '/.well-known/jwks.json';
export const TOKEN_PATH = '/token';
/** Lifetime of the tokens dev-jwks signs. */
export const TOKEN_TTL_SECONDS = 3600;


export interface DevJwksOptions {
  host: string;
  port: number;
  clientId: string;
}

export interface DevJwks {
  jwksUrl: string;
  tokenUrl: string;
  clientId: string;
  kid: string;
  /** A fresh RS256 access token for this user (valid TOKEN_TTL_SECONDS from now). */
  sign(userId: string): Promise<string>;
  close(): Promise<void>;
}

interface Keys {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

async function newKeys(): Promise<Keys> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const kid = randomUUID();
  // The JWK members spec 5.2 lists: kty, use, alg, kid, n, e.
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  return { kid, privateKey, publicJwk };
}

function signer(keys: Keys, clientId: string) {
  return async (userId: string): Promise<string> => {
    const user = userId.toLowerCase();
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ client_id: clientId, token_use: 'access', username: user })
      .setProtectedHeader({ alg: 'RS256', kid: keys.kid, typ: 'JWT' })
      .setAudience(user)
      .setSubject(user)
      .setIssuedAt(now)
      .setNotBefore(now)
      .setExpirationTime(now + TOKEN_TTL_SECONDS)
      .setJti(randomUUID())
      .sign(keys.privateKey);
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

function handler(keys: Keys, sign: (userId: string) => Promise<string>) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://dev-jwks');
    if (req.method !== 'GET') return send(res, 405, { error: 'only GET' });
    if (url.pathname === JWKS_PATH) return send(res, 200, { keys: [keys.publicJwk] });
    if (url.pathname === TOKEN_PATH) {
      const user = url.searchParams.get('user') ?? '';
      if (!isUuid(user)) return send(res, 400, { error: 'user must be the user\'s UUID: /token?user=<uuid>' });
      sign(user).then((token) => send(res, 200, { user_id: user.toLowerCase(), token }), () => send(res, 500, { error: 'signing failed' }));
      return;
    }
    send(res, 404, { error: `no route; GET ${JWKS_PATH} or GET ${TOKEN_PATH}?user=<uuid>` });
  };
}

/** Starts the development JWKS server on host:port (0: any free port). */
export async function startDevJwks(options: DevJwksOptions): Promise<DevJwks> {
  const keys = await newKeys();
  const sign = signer(keys, options.clientId);
  const server = createServer(handler(keys, sign));
  // A port in use or a host it cannot listen on is a ListenError, which the CLI words as such.
  await listen(server, options.host, options.port);
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const base = `http://${host}:${address.port}`;
  return {
    jwksUrl: `${base}${JWKS_PATH}`,
    tokenUrl: `${base}${TOKEN_PATH}`,
    clientId: options.clientId,
    kid: keys.kid,
    sign,
    close: () => new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
