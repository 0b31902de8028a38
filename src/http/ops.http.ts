// Operational routes: liveness, readiness, and the published token verification keys.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { pendingMigrations } from '../db/migrate.ts';
import type { Pool } from '../db/pool.ts';
import { AppError } from '../errors.ts';
import type { TokenService } from '../modules/auth/tokens.service.ts';

export function registerOpsRoutes(app: FastifyInstance, db: Pool, tokens: TokenService): void {
  app.get('/healthz', { schema: { tags: ['operations'], summary: 'The process is up', response: { 200: Type.Object({ status: Type.Literal('ok') }) } } }, async () => ({
    status: 'ok' as const,
  }));

  app.get(
    '/readyz',
    { schema: { tags: ['operations'], summary: 'The database is reachable and migrations are current', response: { 200: Type.Object({ status: Type.Literal('ready') }) } } },
    async () => {
      let pending: string[];
      try {
        pending = await pendingMigrations(db);
      } catch (error) {
        throw new AppError('service_unavailable', 'the database is not reachable', { cause: error });
      }
      if (pending.length) throw new AppError('service_unavailable', `migrations not applied: ${pending.join(', ')}`);
      return { status: 'ready' as const };
    },
  );

  app.get(
    '/.well-known/jwks.json',
    {
      schema: {
        tags: ['auth'],
        summary: 'Public keys that verify the access tokens wagerline issues',
        response: { 200: Type.Object({ keys: Type.Array(Type.Record(Type.String(), Type.Unknown())) }) },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      return { keys: tokens.publicKeys() };
    },
  );
}
