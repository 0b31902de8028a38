// mercurius reads a `query` that does not parse as GraphQL as a JSON syntax tree and executes it
// unchecked (`{"query":"0"}` crashed the executor). Both GraphQL endpoints refuse such a source in
// their preParsing hook: a client's JSON is never taken for a parsed document.

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
