// What one frontend operation may ask for, checked while it is validated (before any resolver
// runs, and cached with the query). Depth alone bounds nothing here (the schema is three levels
// deep): aliases are the cheap denial of service — 200 `myBets(first: 100)` in one request are 200
// page reads, 500 `bet(id)` are 500 lookups. So an operation has at most MAX_ROOT_FIELDS root
// fields (aliases counted), and its cost — every field once per value it may produce, a page at
// its `first` (100 when it comes in a variable), a bet's legs at 10 — is at most MAX_COST: one
// full page of 100 bets with every field fits, with room.
import {
  GraphQLError, Kind, getNamedType, isObjectType,
  type FieldNode, type FragmentDefinitionNode, type GraphQLNamedType, type SelectionSetNode, type ValidationRule,
} from 'graphql';
import { operationScope } from '../../http/graphql-source.ts';

export const MAX_ROOT_FIELDS = 10;
export const MAX_COST = 15_000;
/** myBets' page when `first` is not given, and its largest. */
const DEFAULT_PAGE = 20;
const MAX_PAGE = 100;
/** The most legs a bet has (a MULTI of 10). */
const MAX_LEGS = 10;

/** How many bets a myBets page may hold, from its literal `first`. */
function pageSize(node: FieldNode): number {
  const first = node.arguments?.find((a) => a.name.value === 'first')?.value;
  if (first?.kind === Kind.INT) return Math.min(Math.max(Number(first.value), 1), MAX_PAGE);
  return first?.kind === Kind.VARIABLE ? MAX_PAGE : DEFAULT_PAGE;
}

interface Walk {
  fragments: Map<string, FragmentDefinitionNode>;
  /** Fragments being walked (a cycle is invalid; graphql-js reports it, this walk stops). */
  open: Set<string>;
}

/** The fields a selection set selects, through fragments (the schema has no interfaces or unions). */
function fieldsOf(set: SelectionSetNode | undefined, walk: Walk): FieldNode[] {
  if (!set) return [];
  return set.selections.flatMap((selection) => {
    if (selection.kind === Kind.FIELD) return [selection];
    if (selection.kind === Kind.INLINE_FRAGMENT) return fieldsOf(selection.selectionSet, walk);
    const name = selection.name.value;
    const fragment = walk.fragments.get(name);
    if (!fragment || walk.open.has(name)) return [];
    walk.open.add(name);
    const fields = fieldsOf(fragment.selectionSet, walk);
    walk.open.delete(name);
    return fields;
  });
}

/** The cost of a selection set on `type`; `page` is the size of the enclosing myBets page. */
function cost(set: SelectionSetNode | undefined, type: GraphQLNamedType | undefined, walk: Walk, page: number): number {
  let total = 0;
  for (const field of fieldsOf(set, walk)) {
    const name = field.name.value;
    if (name.startsWith('__')) continue;
    const def = isObjectType(type) ? type.getFields()[name] : undefined;
    const inner = name === 'myBets' ? pageSize(field) : page;
    const size = name === 'bets' && type?.name === 'BetPage' ? page : name === 'legs' && type?.name === 'Bet' ? MAX_LEGS : 1;
    total += size * (1 + cost(field.selectionSet, def ? getNamedType(def.type) : undefined, walk, inner));
    if (total > MAX_COST) return total; // no need to walk the rest of a huge operation
  }
  return total;
}

/** The validation rule: QUERY_TOO_COSTLY for an operation beyond the limits. */
export function frontendLimitsRule(): ValidationRule {
  return (context) => ({
    OperationDefinition(node) {
      const { root, fragments } = operationScope(context, node);
      const walk = { fragments, open: new Set<string>() };
      const name = node.name?.value ?? 'the operation';
      const roots = fieldsOf(node.selectionSet, walk).filter((f) => f.name.value !== '__typename').length;
      if (roots > MAX_ROOT_FIELDS) {
        context.reportError(new GraphQLError(`${name} has ${roots} root fields (aliases included), more than ${MAX_ROOT_FIELDS}: send fewer per request`,
          { nodes: [node], extensions: { code: 'QUERY_TOO_COSTLY', max_root_fields: MAX_ROOT_FIELDS } }));
        return;
      }
      const total = cost(node.selectionSet, root, walk, DEFAULT_PAGE);
      if (total > MAX_COST) {
        context.reportError(new GraphQLError(`${name} may cost more than ${MAX_COST}: ask for fewer bets per page, fewer fields or fewer aliases`,
          { nodes: [node], extensions: { code: 'QUERY_TOO_COSTLY', max_cost: MAX_COST } }));
      }
    },
  });
}
