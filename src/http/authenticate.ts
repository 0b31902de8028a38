// authenticate(scope): the one preHandler every protected route uses. No, bad or expired token:
// 401 with WWW-Authenticate: Bearer error="invalid_token"; a token without the scope: 403 with
// error="insufficient_scope" (RFC 6750 §3). On success request.principal holds the caller.
import type { FastifyInstance, preHandlerAsyncHookHandler } from 'fastify';
import { AppError } from '../errors.ts';
import { TokenError, type Principal, type TokenService } from '../modules/auth/tokens.service.ts';

declare module 'fastify' {
  interface FastifyInstance {
    authenticate(scope: string): preHandlerAsyncHookHandler;
  }
  interface FastifyRequest {
    principal?: Principal;
  }
}

function invalidToken(detail: string): AppError {
  return new AppError('invalid_token', detail, {
    headers: { 'www-authenticate': `Bearer realm="wagerline", error="invalid_token", error_description="${detail}"` },
  });
}

export function registerAuthenticate(app: FastifyInstance, tokens: TokenService): void {
  app.decorateRequest('principal', undefined);
  app.decorate('authenticate', (scope: string): preHandlerAsyncHookHandler => {
    return async (request) => {
      const header = request.headers.authorization;
      const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
      if (!match) throw invalidToken(header ? 'the Authorization header is not "Bearer <token>"' : 'an access token is required');
      try {
        request.principal = await tokens.verify(match[1]!);
      } catch (error) {
        if (error instanceof TokenError) throw invalidToken(error.message);
        throw error;
      }
      if (!request.principal.scopes.includes(scope)) {
        throw new AppError('insufficient_scope', `this route needs a token with scope "${scope}"`, {
          headers: { 'www-authenticate': `Bearer realm="wagerline", error="insufficient_scope", scope="${scope}"` },
        });
      }
    };
  });
}
