// What one back-office request may ask for, checked while the query is validated (before any
// resolver runs, and cached with the query): its depth and its cost. The cost counts every field
// once per value it may produce, lists counting at their largest: a page at its limit (the
// literal `limit` when given, 100 when no limit is given, 1,000 when it comes in a variable), and
// per bet at most 10 legs, 10 wallet calls of 10 attempts and 20 history entries. One full page of
// 1,000 bets with every field fits under MAX_COST; two of them, or a field aliased many times, do
// not. Introspection fields are not counted (when introspection is allowed at all).
import {
  GraphQLError, Kind, getNamedType, isObjectType,
  type FieldNode, type FragmentDefinitionNode, type GraphQLNamedType, type SelectionSetNode, type ValidationRule, type ValueNode,
} from 'graphql';
import { operationScope } from '../../http/graphql-source.ts';

export const MAX_DEPTH = 6;
export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;
/** Per-bet list sizes assumed by the cost (the largest a bet realistically has). */
export const LIST_SIZES: Record<string, number> = {
  'Bet.legs': 10, 'Bet.wallet_calls': 10, 'CancelResult.wallet_calls': 10, 'WalletCall.attempts': 10, 'Bet.history': 20,
};
/** A full page of 1,000 bets with every field, and some room. */
export const MAX_COST = 1_500_000;

interface Walk {
  fragments: Map<string, FragmentDefinitionNode>;
  /** Fragments being walked (a cycle is invalid; another rule reports it, this one stops). */
  open: Set<string>;
  maxDepth: number;
}

const field = (node: ValueNode | undefined, name: string): ValueNode | undefined =>
  node?.kind === Kind.OBJECT ? node.fields.find((f) => f.name.value === name)?.value : undefined;

/** How many bets a getBets may return, read from its literal arguments. */
function pageSize(node: FieldNode): number {
  const input = node.arguments?.find((a) => a.name.value === 'input')?.value;
  const pagination = field(input, 'pagination');
  const limit = field(pagination, 'limit');
  if (input?.kind === Kind.VARIABLE || pagination?.kind === Kind.VARIABLE || limit?.kind === Kind.VARIABLE) return MAX_LIMIT;
  if (limit?.kind === Kind.INT) return Math.min(Math.max(Number(limit.value), 1), MAX_LIMIT);
  return DEFAULT_LIMIT;
}

/** [cost, depth] of a selection set on `type`, or depth Infinity beyond the limit. */
function measure(set: SelectionSetNode | undefined, type: GraphQLNamedType | undefined, walk: Walk, depth: number, page: number): [number, number] {
  if (!set) return [0, depth];
  let cost = 0;
  let deepest = depth;
  for (const selection of set.selections) {
    let inner: SelectionSetNode | undefined;
    if (selection.kind === Kind.FIELD) {
      const name = selection.name.value;
      if (name.startsWith('__')) continue;
      if (depth + 1 > walk.maxDepth) return [cost, Infinity];
      const def = isObjectType(type) ? type.getFields()[name] : undefined;
      const size = name === 'bets' && type?.name === 'BetsPage' ? page : LIST_SIZES[`${type?.name}.${name}`] ?? 1;
      const [below, reached] = measure(selection.selectionSet, def ? getNamedType(def.type) : undefined, walk, depth + 1, name === 'getBets' ? pageSize(selection) : page);
      cost += size * (1 + below);
      deepest = Math.max(deepest, reached);
      continue;
    }
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      inner = selection.selectionSet;
    } else {
      const name = selection.name.value;
      const fragment = walk.fragments.get(name);
      if (!fragment || walk.open.has(name)) continue;
      walk.open.add(name);
      inner = fragment.selectionSet;
    }
    // Our schema has no interfaces or unions: a fragment applies to the type it is spread on.
    const [below, reached] = measure(inner, type, walk, depth, page);
    if (selection.kind === Kind.FRAGMENT_SPREAD) walk.open.delete(selection.name.value);
    cost += below;
    deepest = Math.max(deepest, reached);
  }
  return [cost, deepest];
}

/** The validation rule: QUERY_TOO_DEEP or QUERY_TOO_COSTLY for an operation beyond the limits. */
export function limitsRule(limits: { maxDepth: number; maxCost: number } = { maxDepth: MAX_DEPTH, maxCost: MAX_COST }): ValidationRule {
  return (context) => ({
    OperationDefinition(node) {
      const { root, fragments } = operationScope(context, node);
      const [cost, depth] = measure(node.selectionSet, root, { fragments, open: new Set(), maxDepth: limits.maxDepth }, 0, DEFAULT_LIMIT);
      const name = node.name?.value ?? 'the operation';
      if (depth > limits.maxDepth) {
        context.reportError(new GraphQLError(`${name} is nested deeper than ${limits.maxDepth} fields`, { nodes: [node], extensions: { code: 'QUERY_TOO_DEEP', max_depth: limits.maxDepth } }));
      } else if (cost > limits.maxCost) {
        context.reportError(new GraphQLError(`${name} may cost ${cost}, more than ${limits.maxCost}: ask for fewer bets per page or fewer fields`, { nodes: [node], extensions: { code: 'QUERY_TOO_COSTLY', cost, max_cost: limits.maxCost } }));
      }
    },
  });
}
