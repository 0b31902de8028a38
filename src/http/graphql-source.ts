// mercurius reads a `query` that does not parse as GraphQL as a JSON syntax tree and executes it
// unchecked (`{"query":"0"}` crashed the executor). Both GraphQL endpoints refuse such a source in
// their preParsing hook: a client's JSON is never taken for a parsed document. And a GET naming no
// operation of its query is answered before mercurius reads it (missingOperation).
import type { FastifyRequest } from 'fastify';
import { getOperationAST, Kind, parse, type DocumentNode, type FragmentDefinitionNode, type GraphQLObjectType, type OperationDefinitionNode, type ValidationContext } from 'graphql';

/** JSON's whitespace (RFC 8259): the only characters JSON.parse skips before a value. */
const JSON_SPACE = new Set([' ', '\t', '\n', '\r']);
/** The characters a JSON value can start with: object, array, string, number, true, false, null. */
const JSON_START = new Set(['{', '[', '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 't', 'f', 'n']);

/** Whether `source` is JSON text (a number, a string, an object…), which no GraphQL document is. */
export function isJsonText(source: string): boolean {
  let i = 0;
  while (i < source.length && JSON_SPACE.has(source[i]!)) i += 1;
  // A document that starts otherwise (`mutation`, `query`, `#`…) cannot be JSON: answered without
  // JSON.parse, whose thrown SyntaxError was the costliest step of a placement's request parsing.
  if (i === source.length || !JSON_START.has(source[i]!)) return false;
  try {
    JSON.parse(source);
    return true;
  } catch {
    return false;
  }
}

/** The operationName a request names (body or query string), whole: the operation to run. */
export function requestedOperation(request: FastifyRequest): string | undefined {
  const source = request.method === 'GET' ? request.query : request.body;
  const name = typeof source === 'object' && source !== null ? (source as { operationName?: unknown }).operationName : undefined;
  return typeof name === 'string' ? name : undefined;
}

/**
 * Why a GET's query has no operation to run (an unknown operationName, or none among several), in
 * graphql-js' words as a POST gets them; undefined when it has one or does not parse (mercurius
 * answers that). mercurius reads a GET's operation without checking it was found, even for a
 * document it has cached: both endpoints ask this before it runs, or a client's mistake is a 500.
 */
export function missingOperation(request: FastifyRequest, maxTokens: number): string | undefined {
  const query = (request.query as { query?: unknown } | undefined)?.query;
  if (typeof query !== 'string') return undefined;
  let document: DocumentNode;
  try {
    document = parse(query, { maxTokens });
  } catch {
    return undefined;
  }
  const name = requestedOperation(request);
  if (getOperationAST(document, name) || !document.definitions.some((d) => d.kind === Kind.OPERATION_DEFINITION)) return undefined;
  return name === undefined ? 'Must provide operation name if query contains multiple operations.' : `Unknown operation named "${name}".`;
}

/** What a limits rule walks an operation with: its root type, and the document's fragments by name. */
export function operationScope(context: ValidationContext, node: OperationDefinitionNode): { root: GraphQLObjectType | undefined; fragments: Map<string, FragmentDefinitionNode> } {
  const schema = context.getSchema();
  const root = node.operation === 'mutation' ? schema.getMutationType() : node.operation === 'subscription' ? schema.getSubscriptionType() : schema.getQueryType();
  const fragments = new Map(context.getDocument().definitions
    .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]));
  return { root: root ?? undefined, fragments };
}
