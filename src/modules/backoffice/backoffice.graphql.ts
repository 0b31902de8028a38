// The back-office GraphQL endpoint (docs/backoffice.md): POST /backoffice/query (GET for queries),
// a mercurius instance of its own with its own schema, in an encapsulated plugin context so it sits
// beside the frontend's /graphql. Every request is identified by its x-api-key (and bearer token)
// in onRequest, before its body is read and before any resolver runs; a refused one is answered 401
// or 403 there. Query depth and cost are checked while validating (limits.graphql.ts);
// introspection is off unless WAGERLINE_BACKOFFICE_INTROSPECTION=on.
//
// Every request leaves one log line with its client, its operation name and what came of it, and
// Prometheus metrics by operation: the root fields the request ran ("getBets", "cancelBet",
// "getBets+__typename") — names of the schema, so their number is bounded whatever clients send;
// "none" when nothing ran.
//
// Live subscriptions (betUpdated) go on this same path and instance (mercurius' `subscription`
// option, graphql-ws over WebSocket). An upgrade request carrying x-api-key is identified in
// onRequest like any request (refused 401/403 before the upgrade); one without it is let through,
// and its connection_init payload must carry the key. The payload's x-api-key and authorization
// come first, the upgrade's headers fill in what it lacks; a refusal closes the socket with 4401
// or 4403 (http/graphql-ws.ts).
import { isJsonText, missingOperation, requestedOperation } from '../../http/graphql-source.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { getOperationAST, NoSchemaIntrospectionCustomRule, type DocumentNode } from 'graphql';
import { checkSubscription, checkSubscriptionSource, isUpgrade, KEEP_ALIVE_MS, onConnect } from '../../http/graphql-ws.ts';
import mercurius from 'mercurius';
import { Counter, Histogram, type Registry } from 'prom-client';
import { AppError } from '../../errors.ts';
import { ConnectionsPerUser } from '../../http/connections-per-user.ts';
import { LiveConnection } from '../../http/live-connection.ts';
import { BACKOFFICE_SCHEMA } from './backoffice.schema.ts';
import type { BackofficeService, Caller } from './backoffice.service.ts';
import { backofficeErrorFormatter, graphqlCode } from './errors.graphql.ts';
import { limitsRule } from './limits.graphql.ts';
import { backofficeResolvers, createLoaders, type BackofficeContext } from './resolvers.graphql.ts';

export const BACKOFFICE_PATH = '/backoffice/query';
/** Tokens a query may have: a full getBets with every field is about 200. */
export const MAX_TOKENS = 2000;

export interface BackofficeGraphqlDeps {
  backoffice: BackofficeService;
  introspection: boolean;
  registry: Registry;
  /** Live WebSocket connections one client may hold in this process (WAGERLINE_BACKOFFICE_CONNECTIONS_PER_CLIENT). */
  connectionsPerClient: number;
}

/** What one request did, gathered while it runs. */
interface RequestNote {
  clientId?: string;
  /** The operationName the client sent (clipped), for the log only. */
  operationName?: string;
  /** Root fields run, for the log and the metrics. */
  operation?: string;
  codes?: string[];
}

interface Observer {
  note(request: object): RequestNote;
  /** Records the request: one log line and the metrics. */
  done(request: object, answer: { status: number; seconds: number; log: (fields: Record<string, unknown>, message: string) => void }): void;
}

function createObserver(registry: Registry): Observer {
  const labelNames = ['operation', 'outcome'] as const;
  const requests = new Counter({
    name: 'backoffice_requests_total',
    help: 'Back-office GraphQL requests by operation (root fields) and outcome (ok, or the first error code)',
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'backoffice_request_duration_seconds',
    help: 'Back-office GraphQL request latency by operation',
    labelNames: ['operation'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const notes = new WeakMap<object, RequestNote>();

  return {
    note(request) {
      let note = notes.get(request);
      if (!note) notes.set(request, (note = {}));
      return note;
    },
    done(request, answer) {
      const note = notes.get(request) ?? {};
      const operation = note.operation ?? 'none';
      const outcome = note.codes?.[0] ?? (answer.status < 400 ? 'ok' : `http_${answer.status}`);
      requests.inc({ operation, outcome });
      duration.observe({ operation }, answer.seconds);
      answer.log({
        client_id: note.clientId ?? null, operation_name: note.operationName ?? null, operation, status: answer.status,
        errors: note.codes ?? [], duration_ms: Math.round(answer.seconds * 1000),
      }, 'back-office request');
    },
  };
}

/** A refusal before anything ran: GraphQL's answer shape, with the error's HTTP status. */
function refuse(reply: FastifyReply, error: AppError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  const reason = typeof error.extensions.reason === 'string' ? { reason: error.extensions.reason } : {};
  return reply.code(error.status).send({ data: null, errors: [{ message: error.message, extensions: { code: graphqlCode(error.code), ...reason } }] });
}

/** The root fields the request runs, for metrics: names of the schema only. */
function operationOf(document: DocumentNode, operationName: string | undefined): string {
  const operation = getOperationAST(document, operationName);
  if (!operation) return 'none';
  const fields = operation.selectionSet.selections.flatMap((s) => (s.kind === 'Field' ? [s.name.value] : []));
  return [...new Set(fields)].sort().join('+') || 'none';
}

function identifyHook(backoffice: BackofficeService, observer: Observer) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const apiKey = request.headers['x-api-key'];
    // A subscription may name its client in connection_init instead (browsers cannot set headers).
    if (apiKey === undefined && isUpgrade(request)) return;
    try {
      const caller = await backoffice.identify({ apiKey: typeof apiKey === 'string' ? apiKey : undefined, authorization: request.headers.authorization });
      request.backofficeCaller = caller;
      observer.note(request).clientId = caller.client.client_id;
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      observer.note(request).codes = [graphqlCode(error.code)];
      return refuse(reply, error);
    }
  };
}

declare module 'fastify' {
  interface FastifyRequest {
    backofficeCaller: Caller | null;
  }
}

export async function registerBackofficeGraphql(app: FastifyInstance, deps: BackofficeGraphqlDeps): Promise<void> {
  // Its own plugin context: mercurius decorates the instance it is registered on (app.graphql).
  await app.register(async (scope) => {
    const observer = createObserver(deps.registry);
    scope.decorateRequest('backofficeCaller', null);
    scope.addHook('onRequest', identifyHook(deps.backoffice, observer));
    scope.addHook('preHandler', async (request, reply) => {
      observer.note(request).operationName = requestedOperation(request)?.slice(0, 100); // clipped: for a log line
      const missing = request.method === 'GET' ? missingOperation(request, MAX_TOKENS) : undefined;
      if (missing) {
        observer.note(request).codes = ['GRAPHQL_VALIDATION_FAILED'];
        return reply.code(400).send({ data: null, errors: [{ message: missing, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }] });
      }
    });
    scope.addHook('onResponse', async (request, reply) => {
      // (An upgrade refused here has its socket closed by the app's own onResponse hook: src/app.ts.)
      observer.done(request, { status: reply.statusCode, seconds: reply.elapsedTime / 1000, log: (fields, message) => request.log.info(fields, message) });
    });
    const validationRules = [limitsRule(), ...(deps.introspection ? [] : [NoSchemaIntrospectionCustomRule])];
    // A client reconnecting in a loop would otherwise pile up connections, each re-reading every update's bet.
    const connections = new ConnectionsPerUser(deps.connectionsPerClient, 'client');
    await scope.register(mercurius, {
      schema: BACKOFFICE_SCHEMA,
      path: BACKOFFICE_PATH,
      graphiql: false,
      resolvers: backofficeResolvers(deps.backoffice) as never,
      context: (request: FastifyRequest): BackofficeContext => ({ caller: request.backofficeCaller!, loaders: createLoaders(deps.backoffice) }),
      validationRules,
      subscription: {
        keepAlive: KEEP_ALIVE_MS,
        // A per-connection context: the caller (from onConnect) and the loaders of its bets.
        context: () => ({ loaders: createLoaders(deps.backoffice) }),
        onConnect: onConnect(async (payload, upgrade, socket) => {
          const header = (name: string) => { const v = upgrade?.headers[name]; return typeof v === 'string' ? v : undefined; };
          const caller = await deps.backoffice.identify({
            apiKey: payload['x-api-key'] ?? header('x-api-key'),
            authorization: payload.authorization ?? header('authorization'),
          });
          // Subscriptions are operations on bets: the token is required at once.
          deps.backoffice.requireToken(caller);
          connections.take(caller.client.tenant_id, caller.client.client_id, socket);
          upgrade?.log.info({ client_id: caller.client.client_id }, 'back-office subscription connected');
          // No expiry timer (null): a token expiring does not end a running subscription (docs/backoffice-subscriptions.md).
          return { caller, connection: new LiveConnection(socket, null) };
        }, (error) => graphqlCode(error.code), (fields, message) => scope.log.info(fields, message)),
      },
      graphql: { parseOptions: { maxTokens: MAX_TOKENS } },
      // A query seen before runs compiled (graphql-jit): a page walks ~100 fields of each of up to
      // 1,000 bets, where graphql-js's generic per-field execution and its garbage dominated.
      jit: 1,
      errorFormatter: backofficeErrorFormatter((reply, codes) => {
        if (reply && codes.length) observer.note(reply.request).codes = codes;
      }),
    });
    // A client's JSON is never taken for a parsed document (src/http/graphql-source.ts).
    scope.graphql.addHook('preParsing', async (_schema, source) => {
      if (isJsonText(source)) throw new AppError('validation_failed', 'query is not a GraphQL document');
    });
    scope.graphql.addHook('preSubscriptionParsing', async (_schema, source) => {
      checkSubscriptionSource(source, MAX_TOKENS);
      if (isJsonText(source)) throw new AppError('validation_failed', 'query is not a GraphQL document');
    });
    scope.graphql.addHook('preSubscriptionExecution', async (schema, document) => checkSubscription(schema, document, validationRules));
    scope.graphql.addHook('preExecution', async (_schema, document, context) => {
      const request = context.reply.request;
      // Over HTTP, graphql-js would run a subscription's resolvers on no event: a 500 for a client's mistake.
      if (getOperationAST(document, requestedOperation(request))?.operation === 'subscription') {
        throw new AppError('validation_failed', `a subscription is served over WebSocket at ${BACKOFFICE_PATH} (graphql-transport-ws), not over HTTP`);
      }
      observer.note(request).operation = operationOf(document, observer.note(request).operationName);
    });
  });
}
