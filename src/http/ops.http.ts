// Operational routes: liveness, readiness, and the published token verification keys.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { pendingMigrations } from '../db/migrate.ts';
import { DatabaseUnavailable, type Pool } from '../db/pool.ts';
import { AppError } from '../errors.ts';
import type { TokenService } from '../modules/auth/tokens.service.ts';
import { problemResponses, sendProblem } from './problem.ts';

interface NotReady {
  /** The answer (503 problem+json). */
  problem: AppError;
  /** Why, for the log: with the driver's reason, which the answer does not carry. */
  reason: string;
}

/** Why the process is not ready, or undefined when it is. */
async function notReady(db: Pool): Promise<NotReady | undefined> {
  let pending: string[];
  try {
    pending = await pendingMigrations(db);
  } catch (error) {
    const why = error instanceof DatabaseUnavailable ? error.reason : String((error as Error)?.message ?? error);
    return { problem: new AppError('service_unavailable', 'the database is not reachable', { cause: error }), reason: `the database is not reachable: ${why}` };
  }
  if (!pending.length) return undefined;
  const message = `migrations not applied: ${pending.join(', ')}`;
  return { problem: new AppError('service_unavailable', message), reason: message };
}

/**
 * Logs the changes of readiness only: a load balancer probes every second or so, and one line per
 * failing probe would flood the log through a whole outage. One warn line when the process stops
 * being ready (with the reason, no stack), one info line when it is ready again.
 */
function readinessLog() {
  let ready = true;
  return (request: FastifyRequest, failed: NotReady | undefined) => {
    if (ready && failed) request.log.warn({ reason: failed.reason }, 'not ready');
    if (!ready && !failed) request.log.info('ready again');
    ready = !failed;
  };
}

export function registerOpsRoutes(app: FastifyInstance, db: Pool, tokens: TokenService): void {
  app.get('/healthz', { schema: { tags: ['operations'], summary: 'The process is up', response: { 200: Type.Object({ status: Type.Literal('ok') }) } } }, async () => ({
    status: 'ok' as const,
  }));

  const readiness = readinessLog();
  app.get(
    '/readyz',
    { schema: { tags: ['operations'], summary: 'The database is reachable and migrations are current', response: { 200: Type.Object({ status: Type.Literal('ready') }), ...problemResponses(503) } } },
    async (request, reply) => {
      const failed = await notReady(db);
      readiness(request, failed);
      // Answered here, not thrown: the error handler would log every failing probe, stack and all.
      return failed ? sendProblem(reply, failed.problem) : { status: 'ready' as const };
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
