// The back-office GraphQL endpoint (docs/backoffice.md): POST /backoffice/query (GET for queries),
// a mercurius instance of its own with its own schema, in an encapsulated plugin context so it sits
// beside the frontend's /graphql. Every request is identified by its x-api-key (and bearer token)
// in onRequest, before its body is read and before any resolver runs; a refused one is answered 401
// or 403 there. Query depth and cost are checked while validating (limits.graphql.ts);
// introspection is off unless WAGERLINE_BACKOFFICE_INTROSPECTION=on.
//
// Live subscriptions go on this same path and instance (mercurius' `subscription` option,
// graphql-ws over WebSocket): the upgrade request passes the same onRequest identification, and
// the service's identify() is what a connection_init would call with its payload's token.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { getOperationAST, NoSchemaIntrospectionCustomRule, type DocumentNode } from 'graphql';
import mercurius from 'mercurius';
import type { Registry } from 'prom-client';
import { AppError } from '../../errors.ts';
import { BACKOFFICE_SCHEMA } from './backoffice.schema.ts';
import type { BackofficeService, Caller } from './backoffice.service.ts';
import { backofficeErrorFormatter, graphqlCode } from './errors.graphql.ts';
import { limitsRule } from './limits.graphql.ts';
import { createLoaders } from './loaders.ts';
import { createObserver, operationNameOf, type Observer } from './observe.ts';
import { backofficeResolvers, type BackofficeContext } from './resolvers.ts';
import { SCALARS } from './scalars.graphql.ts';

export const BACKOFFICE_PATH = '/backoffice/query';
/** Tokens a query may have: a full getBets with every field is about 200. */
export const MAX_TOKENS = 2000;

export interface BackofficeGraphqlDeps {
  backoffice: BackofficeService;
  introspection: boolean;
  registry: Registry;
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

function isJson(source: string): boolean {
  try {
    JSON.parse(source);
    return true;
  } catch {
    return false;
  }
}

function identifyHook(backoffice: BackofficeService, observer: Observer) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const apiKey = request.headers['x-api-key'];
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
    scope.addHook('preHandler', async (request) => {
      observer.note(request).operationName = operationNameOf(request.method === 'GET' ? request.query : request.body);
    });
    scope.addHook('onResponse', async (request, reply) => {
      observer.done(request, { status: reply.statusCode, seconds: reply.elapsedTime / 1000, log: (fields, message) => request.log.info(fields, message) });
    });
    await scope.register(mercurius, {
      schema: BACKOFFICE_SCHEMA,
      path: BACKOFFICE_PATH,
      graphiql: false,
      resolvers: { ...backofficeResolvers(deps.backoffice), ...SCALARS } as never,
      context: (request: FastifyRequest): BackofficeContext => ({ caller: request.backofficeCaller!, loaders: createLoaders(deps.backoffice) }),
      validationRules: [limitsRule(), ...(deps.introspection ? [] : [NoSchemaIntrospectionCustomRule])],
      graphql: { parseOptions: { maxTokens: MAX_TOKENS } },
      errorFormatter: backofficeErrorFormatter((reply, codes) => {
        if (reply && codes.length) observer.note(reply.request).codes = codes;
      }),
    });
    // mercurius reads a query that does not parse as GraphQL as a JSON syntax tree, unchecked: a
    // client's JSON is never taken for a parsed document here.
    scope.graphql.addHook('preParsing', async (_schema, source) => {
      if (isJson(source)) throw new AppError('validation_failed', 'query is not a GraphQL document');
    });
    scope.graphql.addHook('preExecution', async (_schema, document, context) => {
      const request = context.reply.request;
      observer.note(request).operation = operationOf(document, observer.note(request).operationName);
    });
  });
}
