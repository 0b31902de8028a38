// mercurius reads a `query` that does not parse as GraphQL as a JSON syntax tree and executes it
// unchecked (`{"query":"0"}` crashed the executor). Both GraphQL endpoints refuse such a source in
// their preParsing hook: a client's JSON is never taken for a parsed document.

/** Whether `source` is JSON text (a number, a string, an object…), which no GraphQL document is. */
export function isJsonText(source: string): boolean {
  try {
    JSON.parse(source);
    return true;
  } catch {
    return false;
  }
}
