// The GraphQL routes of the placement floor's server: what the product must use on top of the
// protocol's minimum, and nothing of wagerline's own. mercurius registered as the frontend's
// POST /graphql is (no JIT, depth limit 8, no GraphiQL), with the placeBet mutation's input types
// as the product declares them; the resolver does what /http-2commits does.
//   POST /graphql      the user named by the X-User-Id header (no token);
//   POST /graphql-jwt  the user from an RS256 token verified with jose against a local key set
//                      (the product's remote set is cached, so no fetch is due per request), with
//                      the claims the product checks: alg, exp with 60 s leeway, client_id,
//                      token_use, aud = username. Every request is verified: no cache.
import type { FastifyInstance } from 'fastify';
import { createLocalJWKSet, jwtVerify, type JWK } from 'jose';
import mercurius, { type MercuriusContext } from 'mercurius';

const SCHEMA = `
  enum BetType { WIN PLACE EXACTA QUINELLA TRIFECTA FIRST_FOUR MULTI QUADDIE DAILY_DOUBLE }
  enum BetStatus { ACCEPTED PARTIALLY_ACCEPTED REJECTED }
  input BetLegInput { meetingId: Int! raceNumber: Int! selections: [[Int!]!]! price: Float }
  input PlaceBetInput { idempotencyKey: String! type: BetType! legs: [BetLegInput!]! stake: Float! boxed: Boolean bonus: Boolean }
  type Bet { id: ID! status: BetStatus! }
  type Query { ping: Boolean }
  type Mutation { placeBet(input: PlaceBetInput!): Bet! }
`;

/** The client_id the load generator's tokens carry. */
export const FLOOR_CLIENT_ID = 'placement-floor';

/** Places one bet as /http-2commits does; resolves with its id. */
export type Place = (userId: string, stake: number) => Promise<string>;

type UserOf = (headers: Record<string, string | string[] | undefined>) => Promise<string>;

function verifierOf(jwk: JWK): UserOf {
  const keys = createLocalJWKSet({ keys: [jwk] });
  return async (headers) => {
    const token = String(headers.authorization ?? '').replace(/^Bearer /, '');
    const { payload } = await jwtVerify(token, keys, { algorithms: ['RS256'], clockTolerance: 60, requiredClaims: ['exp'] });
    if (payload.client_id !== FLOOR_CLIENT_ID || payload.token_use !== 'access') throw new Error('wrong client_id or token_use');
    if (typeof payload.username !== 'string' || payload.aud !== payload.username) throw new Error('aud must be the username');
    return payload.username;
  };
}

async function route(app: FastifyInstance, path: string, place: Place, userOf: UserOf): Promise<void> {
  // A plugin context of its own per route: mercurius decorates the instance it is registered on.
  await app.register(async (scope) => {
    await scope.register(mercurius, {
      schema: SCHEMA,
      path,
      graphiql: false,
      queryDepth: 8,
      context: async (request) => ({ userId: await userOf(request.headers) }),
      resolvers: {
        Mutation: {
          placeBet: async (_root: unknown, args: { input: { stake: number } }, ctx: MercuriusContext & { userId?: string }) => ({
            id: await place(ctx.userId!, args.input.stake),
            status: 'ACCEPTED',
          }),
        },
      },
    });
  });
}

export async function registerGraphqlRoutes(app: FastifyInstance, place: Place, jwk: JWK): Promise<void> {
  await route(app, '/graphql', place, async (headers) => String(headers['x-user-id']));
  await route(app, '/graphql-jwt', place, verifierOf(jwk));
}
