// The back-office schema's scalars (backoffice.schema.ts): Decimal and DateTime as exact text, JSON
// as is. They are output only in practice (no argument takes them), but each also reads input
// strictly.
import { GraphQLError, Kind, valueFromASTUntyped, type ValueNode } from 'graphql';

const DECIMAL = /^-?\d{1,20}(\.\d{1,12})?$/;

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

export const SCALARS = {
  Decimal: { serialize: decimal, parseValue: decimal, parseLiteral: (node: ValueNode) => decimal(text(node, 'a Decimal')) },
  DateTime: { serialize: instant, parseValue: instant, parseLiteral: (node: ValueNode) => instant(text(node, 'a DateTime')) },
  JSON: { serialize: (value: unknown) => value, parseValue: (value: unknown) => value, parseLiteral: (node: ValueNode) => valueFromASTUntyped(node) },
};
