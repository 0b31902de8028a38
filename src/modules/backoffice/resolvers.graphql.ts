// The resolvers of the back-office schema (backoffice.schema.ts): thin calls into the back-office
// service with the request's caller. The fields that need more reads (legs, wallet calls, history)
// are read with a getBets page when its selection names them; elsewhere (a cancelled bet, a bet of
// a live update) they go through per-request loaders: collected while GraphQL walks the result,
// then read for all at once — a fixed number of statements, whatever the number of bets (no N+1).
// The scalars are output only in practice (no argument takes them), but each also reads input
// strictly.
import { GraphQLError, Kind, valueFromASTUntyped, type FieldNode, type GraphQLResolveInfo, type SelectionSetNode, type ValueNode } from 'graphql';
import type { BackofficeBet, BackofficeHistoryEntry, BackofficeLeg, BetParts, WalletCallRecord } from '../betting/backoffice-reads.ts';
import type { BetUpdate } from '../betting/bet-updates.ts';
import { endingWith, type LiveConnection } from '../../http/live-connection.ts';
import type { BackofficeService, Caller, CancelResult, GetBetsInput } from './backoffice.service.ts';
import { codedError } from './errors.graphql.ts';

type Load<K, V> = (keys: K[]) => Promise<V[]>;

/**
 * A function that asks for one key and gets its value, while the keys asked for until the next
 * turn of the event loop are loaded by one call of `load` (values in the order of the keys). The
 * same key asked twice is loaded once.
 */
export function batcher<K, V>(load: Load<K, V>): (key: K) => Promise<V> {
  let queue: Map<K, Array<{ resolve: (v: V) => void; reject: (e: unknown) => void }>> | null = null;
  const flush = async (batch: NonNullable<typeof queue>) => {
    const keys = [...batch.keys()];
    try {
      const values = await load(keys);
      keys.forEach((key, i) => batch.get(key)!.forEach((w) => w.resolve(values[i]!)));
    } catch (error) {
      for (const waiters of batch.values()) waiters.forEach((w) => w.reject(error));
    }
  };
  return (key) => new Promise<V>((resolve, reject) => {
    if (!queue) {
      const batch = new Map<K, Array<{ resolve: (v: V) => void; reject: (e: unknown) => void }>>();
      queue = batch;
      // After the current walk: GraphQL calls every item's resolvers before the loop turns.
      setImmediate(() => {
        queue = null;
        void flush(batch);
      });
    }
    const waiters = queue.get(key);
    if (waiters) waiters.push({ resolve, reject });
    else queue.set(key, [{ resolve, reject }]);
  });
}

export interface BackofficeLoaders {
  legs(bet: BackofficeBet): Promise<BackofficeLeg[]>;
  walletCalls(bet: BackofficeBet): Promise<WalletCallRecord[]>;
  history(bet: BackofficeBet): Promise<BackofficeHistoryEntry[]>;
}

/** The loaders of one request (a new set per request: nothing is cached across requests). */
export function createLoaders(backoffice: Pick<BackofficeService, 'legs' | 'walletCalls' | 'history'>): BackofficeLoaders {
  return {
    legs: batcher((bets: BackofficeBet[]) => backoffice.legs(bets)),
    walletCalls: batcher((bets: BackofficeBet[]) => backoffice.walletCalls(bets)),
    history: batcher((bets: BackofficeBet[]) => backoffice.history(bets)),
  };
}

// Up to 64 decimals: a multi's odds are the exact product of its legs' prices (10 legs of 6 places).
const DECIMAL = /^-?\d{1,20}(\.\d{1,64})?$/;

function text(node: ValueNode, what: string): string {
  if (node.kind !== Kind.STRING) throw new GraphQLError(`${what} is written as a string`);
  return node.value;
}

export function decimal(value: unknown): string {
  if (typeof value !== 'string' || !DECIMAL.test(value)) throw new GraphQLError('a Decimal is decimal text, e.g. "12.50"');
  return value;
}

/**
 * An instant already in the canonical form, with a day every month has, is its own ISO text: the
 * reads produce such text, and passing it through saves a parse and a print per value. Anything
 * else (other offsets, days 29 to 31, Dates) is parsed and printed.
 */
const CANONICAL = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|1\d|2[0-8])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;

export function instant(value: unknown): string {
  if (typeof value === 'string' && CANONICAL.test(value)) return value;
  const date = value instanceof Date ? value : typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T.*(Z|[+-]\d{2}:?\d{2})$/i.test(value) ? new Date(value) : undefined;
  if (!date || Number.isNaN(date.getTime())) throw new GraphQLError('a DateTime is ISO 8601 text with an offset, e.g. "2024-05-01T03:45:00.000Z"');
  return date.toISOString();
}

const SCALARS = {
  Decimal: { serialize: decimal, parseValue: decimal, parseLiteral: (node: ValueNode) => decimal(text(node, 'a Decimal')) },
  DateTime: { serialize: instant, parseValue: instant, parseLiteral: (node: ValueNode) => instant(text(node, 'a DateTime')) },
  JSON: { serialize: (value: unknown) => value, parseValue: (value: unknown) => value, parseLiteral: (node: ValueNode) => valueFromASTUntyped(node) },
};

/** The fields of a selection set, through fragments (validation rules out fragment cycles). */
function fieldsOf(set: SelectionSetNode, fragments: GraphQLResolveInfo['fragments']): FieldNode[] {
  return set.selections.flatMap((s) => {
    if (s.kind === Kind.FIELD) return [s];
    const inner = s.kind === Kind.INLINE_FRAGMENT ? s.selectionSet : fragments[s.name.value]?.selectionSet;
    return inner ? fieldsOf(inner, fragments) : [];
  });
}

/**
 * Which parts of a Bet a getBets selects under `bets` (any alias): those are read with the page,
 * in its statements, rather than by the loaders after it. @skip and @include are not weighed: a
 * part skipped is read for nothing, never missed.
 */
function partsSelected(info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>): BetParts {
  const page = info.fieldNodes.flatMap((n) => (n.selectionSet ? fieldsOf(n.selectionSet, info.fragments) : []));
  const bet = page.filter((f) => f.name.value === 'bets' && f.selectionSet).flatMap((f) => fieldsOf(f.selectionSet!, info.fragments));
  const names = new Set(bet.map((f) => f.name.value));
  return { legs: names.has('legs'), walletCalls: names.has('wallet_calls'), history: names.has('history') };
}

/** What every resolver gets from the request (built by the adapter's context function). */
export interface BackofficeContext {
  caller: Caller;
  loaders: BackofficeLoaders;
  /** A WebSocket connection's places for subscriptions (set by onConnect; none over HTTP). */
  connection?: LiveConnection;
  /** The subscription's id on its connection (set by mercurius). */
  id?: string | number;
}

export function backofficeResolvers(backoffice: BackofficeService) {
  return {
    Query: {
      getBets: (_root: unknown, args: { input: GetBetsInput }, ctx: BackofficeContext, info: GraphQLResolveInfo) =>
        backoffice.getBets(ctx.caller, args.input, partsSelected(info)),
    },
    Mutation: {
      cancelBet: (_root: unknown, args: { bet: { id: string; tenant_id: string }; reason?: string | null }, ctx: BackofficeContext) =>
        backoffice.cancelBet(ctx.caller, args.bet, args.reason),
    },
    Subscription: {
      betUpdated: {
        // Each subscription takes a place on its connection until it ends: an id subscribed again
        // while live closes the connection, as mercurius would otherwise orphan the first one —
        // still reading every update of its tenants once the socket is gone (live-connection.ts).
        subscribe: async (_root: unknown, args: { tenant_ids?: string[] | null }, ctx: BackofficeContext) => {
          let release: (() => void) | undefined;
          try {
            release = ctx.connection?.claim(String(ctx.id));
            const updates = await backoffice.betUpdates(ctx.caller, args.tenant_ids);
            return release ? endingWith(updates, release, codedError) : updates;
          } catch (error) {
            release?.();
            throw codedError(error);
          }
        },
        resolve: (update: BetUpdate) => update,
      },
    },
    BetUpdate: {
      status: (update: BetUpdate) => update.status.toUpperCase(),
      bet: async (update: BetUpdate, _args: unknown, ctx: BackofficeContext) => {
        const bet = await backoffice.betOf(ctx.caller, update);
        if (!bet) throw new GraphQLError(`bet ${update.bet_id} is not found`);
        return bet;
      },
    },
    Bet: {
      // Read with the page when getBets saw them selected; otherwise (cancelBet, betUpdated) batched.
      legs: (bet: BackofficeBet, _args: unknown, ctx: BackofficeContext) => bet.legs ?? ctx.loaders.legs(bet),
      wallet_calls: (bet: BackofficeBet, _args: unknown, ctx: BackofficeContext) => bet.wallet_calls ?? ctx.loaders.walletCalls(bet),
      history: (bet: BackofficeBet, _args: unknown, ctx: BackofficeContext) => bet.history ?? ctx.loaders.history(bet),
    },
    BetLeg: {
      positions_paid: (leg: BackofficeLeg) => leg.postions_paid,
    },
    CancelResult: {
      wallet_calls: (result: CancelResult, _args: unknown, ctx: BackofficeContext) => ctx.loaders.walletCalls(result.bet),
    },
    ...SCALARS,
  };
}
