// The frontend GraphQL endpoint, POST /graphql (mercurius): placeBet, bet(id) and myBets for the
// signed-in user (docs/betting.md). Every error carries a stable extensions.code; an unexpected
// one is logged and answered as INTERNAL_SERVER_ERROR without its details.
import { isJsonText, missingOperation } from '../../http/graphql-source.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import mercurius, { type MercuriusContext } from 'mercurius';
import { GraphQLError } from 'graphql';
import { connectionLost, DatabaseUnavailable } from '../../db/pool.ts';
import { AppError } from '../../errors.ts';
import { ConnectionsPerUser } from '../../http/connections-per-user.ts';
import { bodyTooLarge } from '../../http/problem.ts';
import { checkSubscription, checkSubscriptionSource, KEEP_ALIVE_MS, onConnect } from '../../http/graphql-ws.ts';
import { endingWith, LiveConnection } from '../../http/live-connection.ts';
import { whileActive, type BetUpdate } from './bet-updates.ts';
import { frontendLimitsRule } from './limits.graphql.ts';
import type { BettingService, BettingUser } from './betting.service.ts';
import type { PlaceBetInput } from './placement.ts';

export const FRONTEND_SCHEMA = /* GraphQL */ `
  enum BetType { WIN PLACE EXACTA QUINELLA TRIFECTA FIRST_FOUR MULTI QUADDIE DAILY_DOUBLE }
  enum BetStatus { PENDING ACCEPTED PARTIALLY_ACCEPTED REJECTED SETTLED REFUNDED CANCELLED CASHED_OUT }
  enum BetResult { WON LOST }

  input BetLegInput { meetingId: Int! raceNumber: Int! selections: [[Int!]!]! price: Float }
  input PlaceBetInput {
    idempotencyKey: String!
    type: BetType!
    legs: [BetLegInput!]!
    stake: Float!
    boxed: Boolean
    bonus: Boolean
  }

  type BetLeg { meetingId: Int! raceNumber: Int! eventId: ID! eventName: String! selections: [[Int!]!]! price: Float seenPrice: Float }
  type Bet {
    id: ID!
    ticketId: ID!
    type: BetType!
    status: BetStatus!
    stake: Float!
    acceptedStake: Float
    percentage: Float
    originalPercentage: Float
    combinations: Int!
    odds: Float
    originalOdds: Float
    boxed: Boolean!
    bonus: Boolean!
    reason: String
    reasonCode: String
    createdAt: String!
    result: BetResult
    payout: Float!
    refunded: Float!
    cashOut: Float
    settledAt: String
    legs: [BetLeg!]!
  }
  type BetPage { bets: [Bet!]! endCursor: String hasMore: Boolean! }

  type Query {
    bet(id: ID!): Bet
    myBets(first: Int, after: String): BetPage!
  }
  type Mutation { placeBet(input: PlaceBetInput!): Bet! }
  type Subscription {
    "Changes of the signed-in user's own bets (taken, settled, cancelled, …), made by any process, from now on: the bet as bet(id) reads it."
    myBetUpdated: Bet!
  }
`;

/** Tokens a subscription's query may have. */
const MAX_SUBSCRIPTION_TOKENS = 2000;
/** Tokens a query or mutation may have: a placeBet of 10 legs written inline is a few hundred. */
const MAX_TOKENS = 5000;
/** Tokens of a GET's query parsed to find its operation: more than a URL holds (Node's 16 KB header limit). */
const MAX_QUERY_TOKENS = 20_000;

/** Who is asking: user authentication reads the request's headers. */
export interface UserAuthenticator {
  /** expiresInMs: how long the user's token stays valid (null: no expiry known, custom mode). */
  authenticate(headers: FastifyRequest['headers']): Promise<BettingUser & { expiresInMs: number | null }>;
  /** Whether the tenant still admits its users (a running subscription ends when it does not). */
  admits(tenantId: string): Promise<boolean>;
}

const MAX_PAGE = 100;

/** Our codes, as GraphQL clients expect them: upper case; an unauthenticated user is UNAUTHENTICATED. */
export function graphqlCode(code: string): string {
  return code === 'user_unauthenticated' || code === 'invalid_token' ? 'UNAUTHENTICATED' : code.toUpperCase();
}

type Execution = Parameters<NonNullable<Parameters<typeof mercurius>[1]>['errorFormatter'] & {}>[0];

/** The framework's refusals of a request before GraphQL reads it (its body), by HTTP status. */
const REFUSED: Record<number, string> = { 413: 'PAYLOAD_TOO_LARGE', 415: 'UNSUPPORTED_MEDIA_TYPE' };

/** A refusal's message: the framework's, but a 413 says the limit and a 415 what to send instead. */
function refusal(status: number, message: string, ctx: MercuriusContext): string {
  if (status === 413 && ctx.reply) return bodyTooLarge(ctx.reply.request, 'endpoint');
  if (status !== 415) return message.slice(0, 300);
  const type = ctx.reply?.request.headers['content-type'];
  return `the body must be application/json${typeof type === 'string' ? `, not ${JSON.stringify(type.slice(0, 100))}` : ''}`;
}

function formatErrors(execution: Execution, ctx: MercuriusContext) {
  const log = ctx.reply?.log ?? ctx.app.log;
  let refused: number | undefined;
  const errors = (execution.errors ?? []).flatMap((error) => {
    const raised = error.originalError as (Error & { errors?: Error[]; statusCode?: unknown }) | undefined;
    const original: (Error & { errors?: Error[] }) | undefined = connectionLost(raised) ?? raised;
    const at = { ...(error.locations && { locations: error.locations }), ...(error.path && { path: error.path }) };
    if (original && Array.isArray(original.errors)) {
      // A limit of limits.graphql.ts keeps its own code (QUERY_TOO_COSTLY) and bounds.
      return original.errors.map((e) => {
        const extensions = (e as Error & { extensions?: Record<string, unknown> }).extensions;
        return { message: e.message, extensions: { ...extensions, code: extensions?.code ?? 'GRAPHQL_VALIDATION_FAILED' } };
      });
    }
    if (original instanceof DatabaseUnavailable) log.warn({ reason: original.reason }, 'graphql request failed: the database cannot be reached');
    if (original instanceof AppError) {
      // A frontend user refused says why (expired, unknown_kid, …: docs/frontend.md), never the token.
      const reason = typeof original.extensions.reason === 'string' ? { reason: original.extensions.reason } : {};
      return [{ message: original.message, ...at, extensions: { code: graphqlCode(original.code), ...reason } }];
    }
    if (!original) return [{ message: error.message, ...at, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }];
    // A body the framework refused (not JSON, too large, another content type): the client's
    // mistake, answered with its status, never as an internal error.
    const status = (original as { statusCode?: unknown }).statusCode;
    if (!error.path && typeof status === 'number' && status >= 400 && status < 500) {
      refused ??= status;
      return [{ message: refusal(status, original.message, ctx), extensions: { code: REFUSED[status] ?? 'BAD_REQUEST' } }];
    }
    log.error({ err: original }, 'graphql resolver failed');
    return [{ message: 'internal error; it has been logged with the request id', ...at, extensions: { code: 'INTERNAL_SERVER_ERROR' } }];
  });
  // A request that never reached a resolver (it does not parse, validate, or match the schema's
  // types) is a 400, as GraphQL over HTTP has it; resolver errors come with a path and a 200.
  const reachedResolvers = execution.data != null || (execution.errors ?? []).some((e) => e.path !== undefined);
  return { statusCode: refused ?? (reachedResolvers ? 200 : 400), response: { data: execution.data ?? null, errors } };
}

/**
 * A subscription's refusal as the client receives it: mercurius sends an error thrown while
 * subscribing as it is, without the formatter, so the stable code goes in its extensions here.
 */
function withCode(error: unknown): unknown {
  if (!(error instanceof AppError)) return error;
  return new GraphQLError(error.message, { extensions: { code: graphqlCode(error.code) }, originalError: error });
}

/** The user of a subscription and its connection, identified once by its connection_init (onConnect). */
const subscriber = (ctx: MercuriusContext) => ctx as MercuriusContext & { user: BettingUser; connection: LiveConnection; id: string | number };

/** The headers a frontend request may carry (docs/frontend.md), for the CORS preflight. */
const REQUEST_HEADERS = 'authorization, content-type, x-tenant-id, x-host-state-user, x-medium, x-request-id';

/**
 * CORS for tenants' web frontends, which call /graphql from their own origins: any origin may,
 * without credentials. Users prove themselves with bearer tokens in headers, never cookies, so a
 * page gains nothing from wagerline that the token it holds does not already give it.
 */
function allowBrowsers(scope: FastifyInstance): void {
  scope.addHook('onSend', async (_request, reply) => {
    reply.header('access-control-allow-origin', '*');
    reply.header('access-control-expose-headers', 'x-request-id, retry-after, www-authenticate');
  });
  scope.options('/graphql', { schema: { hide: true } }, async (_request, reply) => reply.code(204)
    .header('access-control-allow-methods', 'GET, POST, OPTIONS')
    .header('access-control-allow-headers', REQUEST_HEADERS)
    .header('access-control-max-age', '600')
    .send());
}

interface FrontendDeps {
  betting: BettingService;
  users: UserAuthenticator;
  /** Live WebSocket connections one user may hold in this process (WAGERLINE_FRONTEND_CONNECTIONS_PER_USER). */
  connectionsPerUser: number;
}

export async function registerFrontendGraphql(app: FastifyInstance, deps: FrontendDeps): Promise<void> {
  // Its own plugin context, as the back-office's: the hook below is for /graphql alone.
  await app.register(async (scope) => {
    allowBrowsers(scope);
    scope.addHook('preHandler', async (request, reply) => {
      const missing = request.method === 'GET' ? missingOperation(request, MAX_QUERY_TOKENS) : undefined;
      if (missing) return reply.code(400).send({ data: null, errors: [{ message: missing, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }] });
    });
    await registerEndpoint(scope, deps);
  });
}

async function registerEndpoint(app: FastifyInstance, deps: FrontendDeps): Promise<void> {
  const user = (ctx: MercuriusContext) => deps.users.authenticate(ctx.reply.request.headers);
  const connections = new ConnectionsPerUser(deps.connectionsPerUser);
  await app.register(mercurius, {
    schema: FRONTEND_SCHEMA,
    path: '/graphql',
    graphiql: false,
    queryDepth: 8,
    validationRules: [frontendLimitsRule()],
    graphql: { parseOptions: { maxTokens: MAX_TOKENS } },
    errorFormatter: formatErrors,
    subscription: {
      keepAlive: KEEP_ALIVE_MS,
      // connection_init carries what a request's headers carry: {"authorization": "Bearer <token>",
      // "x-tenant-id": "<tenant>"} (custom mode: "x-host-state-user" too); `token` is short for the bearer.
      onConnect: onConnect(async (payload, _upgrade, socket) => {
        const headers = { ...payload, ...(payload.token && !payload.authorization && { authorization: `Bearer ${payload.token}` }) };
        const user = await deps.users.authenticate(headers);
        connections.take(user.tenantId, user.userId, socket);
        return { user, connection: new LiveConnection(socket, user.expiresInMs) };
      }, (error) => graphqlCode(error.code), (fields, message) => app.log.info(fields, message)),
    },
    resolvers: {
      Subscription: {
        myBetUpdated: {
          subscribe: async (_root: unknown, _args: unknown, ctx: MercuriusContext) => {
            const { user, connection, id } = subscriber(ctx);
            let release: (() => void) | undefined;
            try {
              release = connection.claim(String(id));
              return endingWith(whileActive(await deps.betting.myBetUpdates(user), () => deps.users.admits(user.tenantId)), release, withCode);
            } catch (error) {
              release?.();
              throw withCode(error);
            }
          },
          resolve: async (update: BetUpdate, _args: unknown, ctx: MercuriusContext) => {
            // Sent as an HTTP request, the operation runs this resolver alone: no connection, no user, no update.
            const user = (ctx as MercuriusContext & { user?: BettingUser }).user;
            if (!user) throw new AppError('bad_request', 'myBetUpdated is a subscription: open it over WebSocket (graphql-transport-ws) at /graphql');
            const bet = await deps.betting.getBet(user, update.bet_id);
            if (!bet) throw new AppError('bet_not_found', `bet ${update.bet_id} is not found`);
            return bet;
          },
        },
      },
      Query: {
        bet: async (_root: unknown, args: { id: string }, ctx: MercuriusContext) => deps.betting.getBet(await user(ctx), args.id),
        myBets: async (_root: unknown, args: { first?: number | null; after?: string | null }, ctx: MercuriusContext) => {
          // Who asks first: an anonymous caller learns nothing of the arguments' rules.
          const asker = await user(ctx);
          const first = args.first ?? 20;
          if (!Number.isInteger(first) || first < 1 || first > MAX_PAGE) throw new AppError('bad_request', `first must be 1 to ${MAX_PAGE}`);
          return deps.betting.myBets(asker, first, args.after ?? null);
        },
      },
      Mutation: {
        placeBet: async (_root: unknown, args: { input: PlaceBetInput }, ctx: MercuriusContext) => {
          const request = ctx.reply.request;
          const medium = request.headers['x-medium'];
          return deps.betting.placeBet(await user(ctx), args.input, {
            ip: request.ip,
            ...(typeof medium === 'string' && /^[a-z_-]{1,32}$/i.test(medium) && { medium: medium.toLowerCase() }),
          });
        },
      },
    },
  });
  // A client's JSON is never taken for a parsed document (src/http/graphql-source.ts).
  app.graphql.addHook('preParsing', async (_schema, source) => {
    if (isJsonText(source)) throw new AppError('bad_request', 'query is not a GraphQL document');
  });
  app.graphql.addHook('preSubscriptionParsing', async (_schema, source) => checkSubscriptionSource(source, MAX_SUBSCRIPTION_TOKENS));
  app.graphql.addHook('preSubscriptionExecution', async (schema, document) => checkSubscription(schema, document, [frontendLimitsRule()]));
}
