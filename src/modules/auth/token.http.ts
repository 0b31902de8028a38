// POST /oauth/token — the client-credentials grant (RFC 6749 §4.4) of the upload interface (spec
// 4.2: Basic header plus client_id in the form) and of the back-office (spec 4.4: client_id and
// client_secret in the body). Errors keep RFC 6749 §5.2's shape, not problem+json.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { DatabaseUnavailable } from '../../db/pool.ts';
import { AppError, echo } from '../../errors.ts';
import { OAuthError, type TokenService } from './tokens.service.ts';

const TokenRequest = Type.Object(
  {
    grant_type: Type.Optional(Type.String({ description: 'Must be client_credentials' })),
    client_id: Type.Optional(Type.String()),
    client_secret: Type.Optional(Type.String({ description: 'client_secret_post; omit when sending HTTP Basic' })),
    scope: Type.Optional(Type.String({ description: 'Space-separated subset of the client\'s scopes' })),
  },
  { additionalProperties: true },
);

const TokenResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer(),
  scope: Type.String(),
});

const OAuthErrorBody = Type.Object({ error: Type.String(), error_description: Type.String() });

type Body = Record<string, unknown>;

/** RFC 6749 §2.3.1: id and secret are form-urlencoded before being joined for HTTP Basic. */
function parseBasic(header: string): { id: string; secret: string } {
  const encoded = header.replace(/^Basic\s+/i, '').trim();
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw new OAuthError('invalid_client', 'the Basic credentials are not base64(client_id:client_secret)');
  const unform = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
  try {
    return { id: unform(decoded.slice(0, colon)), secret: unform(decoded.slice(colon + 1)) };
  } catch {
    throw new OAuthError('invalid_client', 'the Basic credentials are not validly encoded');
  }
}

function field(body: Body, name: string): string | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new OAuthError('invalid_request', `${name} must be a string`);
  return value;
}

function credentials(authorization: string | undefined, body: Body): { id: string; secret: string } {
  const bodyId = field(body, 'client_id');
  const bodySecret = field(body, 'client_secret');
  if (authorization && /^Basic\s/i.test(authorization)) {
    if (bodySecret !== undefined) {
      throw new OAuthError('invalid_request', 'use one client authentication method: HTTP Basic or client_secret in the body, not both');
    }
    const basic = parseBasic(authorization);
    if (bodyId !== undefined && bodyId !== basic.id) {
      throw new OAuthError('invalid_request', 'client_id in the body differs from the one in the Basic header');
    }
    return basic;
  }
  if (!bodyId || bodySecret === undefined) {
    throw new OAuthError('invalid_client', 'client authentication is required: HTTP Basic, or client_id and client_secret in the body');
  }
  return { id: bodyId, secret: bodySecret };
}

function sendOAuthError(reply: FastifyReply, error: OAuthError): FastifyReply {
  if (error.status === 401) reply.header('www-authenticate', 'Basic realm="wagerline"');
  return reply
    .status(error.status)
    .header('cache-control', 'no-store')
    .send({ error: error.error, error_description: error.message });
}

export function registerTokenRoute(app: FastifyInstance, tokens: TokenService, ratePerMinute: number): void {
  app.post(
    '/oauth/token',
    {
      // U+0000 in client_id is an unknown client (invalid_client, tokens.service), not a 400.
      config: { rateLimit: { max: ratePerMinute, timeWindow: '1 minute' }, ownTextRules: true },
      schema: {
        tags: ['auth'],
        summary: 'Get an access token (OAuth 2.0 client credentials)',
        description:
          'Body as application/x-www-form-urlencoded or application/json. Authenticate with HTTP Basic ' +
          '(client_secret_basic) or client_id + client_secret in the body (client_secret_post).',
        body: TokenRequest,
        response: { 200: TokenResponse, '4xx': OAuthErrorBody, '5xx': OAuthErrorBody },
      },
      errorHandler: (error, _request, reply) => {
        if (error instanceof OAuthError) return sendOAuthError(reply, error);
        if (error.statusCode === 429) {
          return reply.status(429).send({ error: 'temporarily_unavailable', error_description: error.message });
        }
        // No body, a text/plain one or JSON that is no object: "body must be object" says too little.
        if (error.validation?.some((v) => v.instancePath === '' && v.keyword === 'type')) {
          return sendOAuthError(reply, new OAuthError('invalid_request',
            'the body must be a form (application/x-www-form-urlencoded) or a JSON object, holding grant_type=client_credentials'));
        }
        if (error.statusCode && error.statusCode < 500) {
          return sendOAuthError(reply, new OAuthError('invalid_request', error.message));
        }
        // The database out of reach (or the signing key not loaded): RFC 6749's temporarily_unavailable.
        if (error instanceof AppError && error.status === 503) {
          reply.log.warn({ reason: error instanceof DatabaseUnavailable ? error.reason : error.message }, 'token request failed: service unavailable');
          return reply.status(503).send({ error: 'temporarily_unavailable', error_description: error.message });
        }
        reply.log.error({ err: error }, 'token request failed');
        return reply.status(500).send({ error: 'server_error', error_description: 'an unexpected error occurred' });
      },
    },
    async (request, reply) => {
      const body = (request.body ?? {}) as Body;
      const grantType = field(body, 'grant_type');
      if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required');
      if (grantType !== 'client_credentials') {
        throw new OAuthError('unsupported_grant_type', `grant_type ${echo(grantType)} is not supported; use client_credentials`);
      }
      const { id, secret } = credentials(request.headers.authorization, body);
      const token = await tokens.grant(id, secret, field(body, 'scope'));
      return reply
        .header('cache-control', 'no-store')
        .header('pragma', 'no-cache')
        .send({ access_token: token.access_token, token_type: 'Bearer' as const, expires_in: token.expires_in, scope: token.scope });
    },
  );
}
