// buildApp(deps) assembles the HTTP service without listening: main.ts listens, tests call
// app.inject() or listen on an ephemeral port. Dependencies come in as arguments.
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import fastifyWebsocket from '@fastify/websocket';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Registry } from 'prom-client';
import type { Config } from './config.ts';
import type { Pool } from './db/pool.ts';
import { registerAuthenticate } from './http/authenticate.ts';
import { logMethod, serializers } from './http/log.ts';
import { createRegistry, registerMetrics } from './http/metrics.ts';
import { registerOpsRoutes } from './http/ops.http.ts';
import { frameworkProblem, registerProblemHandlers, sendProblem } from './http/problem.ts';
import { isUpgrade } from './http/graphql-ws.ts';
import { registerTextRules } from './http/text-rules.ts';
import { registerTokenRoute } from './modules/auth/token.http.ts';
import { BACKOFFICE_PATH, registerBackofficeGraphql } from './modules/backoffice/backoffice.graphql.ts';
import { registerFrontendGraphql } from './modules/betting/betting.graphql.ts';
import { registerBetAdminRoutes } from './modules/betting/betting.http.ts';
import { registerCatalogueRoutes } from './modules/catalogue/catalogue.http.ts';
import { registerIntakeRoutes } from './modules/intake/intake.http.ts';
import { registerReportRoutes } from './modules/reports/reports.http.ts';
import { registerPlatformRoutes } from './modules/tenants/platform.http.ts';
import { registerTenantAdminRoutes } from './modules/tenants/tenants.http.ts';
import { registerWalletControlRoutes } from './modules/wallet/controls/controls.http.ts';
import type { Services } from './services.ts';

export interface AppDeps {
  config: Config;
  /** For the readiness probe (database reachable, migrations applied). */
  db: Pool;
  /** Every service, from the composition root (services.ts). */
  services: Services;
  registry?: Registry;
  /** pino options, or false for no logs (tests). */
  logger?: boolean | Record<string, unknown>;
}

// Never log credentials: Fastify's request serializer leaves headers out, this is the backstop.
export const REDACT = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  // Frontend users: the bearer is the user's token, and custom mode's user metadata travels here.
  'req.headers["x-host-state-user"]',
  '*.headers.authorization',
  '*.headers["x-host-state-user"]',
  '*.client_secret',
  '*.access_token',
  '*.api_key',
  '*.token',
];

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const app = Fastify({
    logger: deps.logger === false ? false : { level: config.LOG_LEVEL, redact: REDACT, serializers, hooks: { logMethod }, ...(typeof deps.logger === 'object' ? deps.logger : {}) },
    bodyLimit: config.WAGERLINE_BODY_LIMIT_BYTES,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    return503OnClosing: true,
    // Behind a reverse proxy, request.ip (a bet's ip_address, the token rate limit, the logs) is
    // the client's only when the proxy is trusted to say it (X-Forwarded-For).
    trustProxy: config.WAGERLINE_TRUST_PROXY,
    // No type coercion anywhere (Fastify's default turns ["x"] into "x" and "1" into 1): a JSON
    // field of the wrong type is a 400. Query values are strings by nature: their schemas are
    // strings (with patterns) and the routes parse them explicitly (docs/errors.md).
    // Nor are unknown fields dropped (Fastify's default removes them where a schema says
    // additionalProperties: false): a misspelt field is a 400 naming it, never silently ignored.
    ajv: { customOptions: { allErrors: true, coerceTypes: false, removeAdditional: false } },
    // The router's own refusals (a path whose %-escapes are broken or not UTF-8) answer as every
    // other 400 does, not with Fastify's JSON; no hook runs for them, so the request id is set here.
    frameworkErrors: (error, request, reply) => sendProblem(reply.header('x-request-id', request.id), frameworkProblem(error)),
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Once closing, every answer ends its connection: a request in flight at shutdown would
  // otherwise leave its kept-alive connection open for keepAliveTimeout (72 s), and the server
  // does not close until it is gone (closing reaps only the connections idle at that moment).
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (closing) reply.header('connection', 'close');
  });
  // An upgrade answered over HTTP, with anything but 101 (an unknown path, a REST route, a refused
  // key): its socket was handed to the WebSocket server, so no idle timeout of the HTTP server
  // closes it; closed here, or any client could hold any number of them open (and hold up shutdown).
  // A handshake that succeeds is hijacked by the WebSocket server and never reaches this hook.
  app.addHook('onResponse', async (request, reply) => {
    if (isUpgrade(request) && reply.statusCode !== 101) request.raw.socket?.destroy();
  });
  registerProblemHandlers(app);
  registerTextRules(app);
  await app.register(helmet, { contentSecurityPolicy: false, global: true });
  await app.register(formbody);
  await app.register(rateLimit, { global: false });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'wagerline',
        version: '0.1.0',
        description: 'Reporting upload (A), operator wallet integration (B) and back-office (C) for wagering operators.',
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Access token from POST /oauth/token' },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  const registry = deps.registry ?? createRegistry();
  registerMetrics(app, registry);
  const { services } = deps;
  registerAuthenticate(app, services.tokens);
  registerOpsRoutes(app, deps.db, services.tokens);
  registerTokenRoute(app, services.tokens, config.WAGERLINE_TOKEN_RATE_LIMIT);
  registerReportRoutes(app, services.reports);
  registerIntakeRoutes(app, services.intake, config);
  // A final result queues its race for settlement; the route starts settling it at once.
  registerCatalogueRoutes(app, services.catalogue, { settle: () => services.settlement.runPending() });
  registerBetAdminRoutes(app, services.bets);
  registerTenantAdminRoutes(app, {
    tenants: services.tenants, overview: services.tenantOverview, wallet: services.wallet, users: services.users, betting: services.betting,
  });
  registerWalletControlRoutes(app, services.wallet);
  registerPlatformRoutes(app, { tenants: services.tenants, tokens: services.tokens });
  // One WebSocket server for the subscriptions of both GraphQL endpoints. Left to mercurius, each
  // endpoint's scope registers its own, and every upgrade reaches both: the second fails it again
  // and logs a warning for every connection. Messages up to 1 MiB, as mercurius sets.
  await app.register(fastifyWebsocket, { options: { maxPayload: 1_048_576 } });
  app.addHook('onRoute', documentGraphqlRoute);
  await registerFrontendGraphql(app, { betting: services.betting, users: services.users, connectionsPerUser: config.WAGERLINE_FRONTEND_CONNECTIONS_PER_USER });
  await registerBackofficeGraphql(app, { backoffice: services.backoffice, introspection: config.WAGERLINE_BACKOFFICE_INTROSPECTION === 'on', registry,
    connectionsPerClient: config.WAGERLINE_BACKOFFICE_CONNECTIONS_PER_CLIENT });
  return app;
}

/** The GraphQL endpoints in the OpenAPI document: their group, and what each answers. */
const GRAPHQL_ROUTES: Record<string, { tag: string; summary: string; errors: string }> = {
  '/graphql': {
    tag: 'frontend',
    summary: 'The frontend GraphQL endpoint: placeBet, bet, myBets for a signed-in user (X-Tenant-Id and a user token; docs/betting.md)',
    errors: 'The request never reached a resolver, errors in the GraphQL shape: 400 (it does not parse or validate, a body that is not JSON), '
      + '413 (the body is too large), 415 (the body is not application/json)',
  },
  [BACKOFFICE_PATH]: {
    tag: 'backoffice',
    summary: 'The back-office GraphQL endpoint: getBets, cancelBet (x-api-key and a token of scope backoffice; docs/backoffice.md)',
    errors: 'Refused before anything ran, errors in the GraphQL shape: 400 (it does not parse or validate), 401 UNAUTHENTICATED, '
      + '403 FORBIDDEN (every error so), 405 (a mutation over GET), 413, 415',
  },
};

/**
 * mercurius documents its routes with a 2XX answer only: the 4xx they give are documented beside
 * it, in the same shape ({data, errors}), with the endpoint's group and summary.
 */
function documentGraphqlRoute(route: RouteOptions): void {
  const doc = GRAPHQL_ROUTES[route.url];
  const schema = route.schema as { response?: Record<string, object>; tags?: string[]; summary?: string } | undefined;
  const answer = schema?.response?.['2xx'];
  if (!doc || !schema || !answer) return;
  schema.tags ??= [doc.tag];
  schema.summary ??= doc.summary;
  schema.response!['4xx'] = { ...answer, description: doc.errors };
}
