// A key given twice in one JSON object: JSON.parse keeps the last value and says nothing, so
// {"bets":[A,B],"bets":[C]} would store C alone and report success. The upload routes refuse such
// a body (upload-body.ts), and this scan finds where. It runs on text JSON.parse has accepted, so it
// only has to follow the structure, never to check the syntax.
//
// Cost: a body without repeats (every body worth storing) pays two counts, ~0.7 ms for a 1,000-bet
// batch (validation: ~4-6 ms): the keys written in the text (a colon outside strings is always
// after a key) and the keys JSON.parse kept; a repeat makes them differ. Only then does the slower
// scan (~1.8 ms) run, to say where. No npm package fitted: the duplicate-key validators on the
// registry are JSON parsers of their own (unmaintained, or a command-line tool with dependencies),
// slower than JSON.parse, and none says where in a form an upload's errors can use.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/** Index of the quote that closes the string opened at `start` (an escaped quote does not). */
function stringEnd(text: string, start: number): number {
  let end = start;
  for (;;) {
    end = text.indexOf('"', end + 1);
    if (end < 0) return text.length; // not JSON after all: nothing more to scan
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return end;
  }
}

/** How many keys the JSON text writes (repeats included). */
function keysWritten(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) i = stringEnd(text, i);
    else if (c === COLON) count++;
  }
  return count;
}

/** How many keys the parsed value holds (a repeat kept once, and only its last value). Iterative. */
function keysKept(value: unknown): number {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) if (typeof v[i] === 'object' && v[i] !== null) stack.push(v[i]);
    } else if (typeof v === 'object' && v !== null) {
      for (const key in v) {
        count++;
        const child = (v as Record<string, unknown>)[key];
        if (typeof child === 'object' && child !== null) stack.push(child);
      }
    }
  }
  return count;
}

/** firstDuplicateKey(text), after a cheap check that there is one: `value` is JSON.parse(text). */
export function duplicateKeyPath(text: string, value: unknown): string[] | undefined {
  return keysWritten(text) === keysKept(value) ? undefined : firstDuplicateKey(text);
}

/**
 * The path to the first key that repeats an earlier key of the same object, as segments from the
 * root (object keys and array indexes, the repeated key last), e.g. ["bets", "0", "amount"]; or
 * undefined when every object's keys are distinct. Keys are compared as JSON.parse decodes them
 * ("a" and "\u0061" are one key). `text` must be valid JSON.
 */
export function firstDuplicateKey(text: string): string[] | undefined {
  // One entry per open object or array: an object's current key (null before its first), an
  // array's current index; and, once an object has a second key, the set of its keys.
  const at: Array<string | number | null> = [];
  const sets: Array<Set<string> | undefined> = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (expectKey) {
        const raw = text.slice(i + 1, end);
        const key: string = raw.includes('\\') ? JSON.parse(text.slice(i, end + 1)) : raw;
        const d = at.length - 1;
        const current = at[d] as string | null;
        if (current !== null) {
          let keys = sets[d];
          if (!keys) keys = sets[d] = new Set([current]);
          if (keys.has(key)) return [...at.slice(0, d).map(String), key];
          keys.add(key);
        }
        at[d] = key;
        expectKey = false;
      }
      i = end;
    } else if (c === OPEN_OBJECT) {
      at.push(null);
      expectKey = true;
    } else if (c === OPEN_ARRAY) {
      at.push(0);
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      sets[at.length - 1] = undefined;
      at.pop();
      expectKey = false; // an empty object closes still expecting its first key
    } else if (c === COMMA) {
      const d = at.length - 1;
      if (typeof at[d] === 'number') at[d] = (at[d] as number) + 1;
      else expectKey = true;
    }
  }
  return undefined;
}
