// Shared pieces of the fuzz suites (test/fuzz-*.test.ts): run settings, the arbitraries of hostile
// values, the checks every answer must pass, and a fingerprint of every table to prove that a
// refused request wrote nothing.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import type { Pool } from '../../src/db/pool.ts';

/**
 * fast-check parameters for a property with `runs` cases by default. FUZZ_RUNS multiplies every
 * property's runs (FUZZ_RUNS=20 for a long run); FUZZ_SEED (and FUZZ_PATH, both printed by a
 * failure) replay a failing case. Without FUZZ_SEED each run draws a new seed, printed on failure.
 */
export function fuzzRuns(runs: number): fc.Parameters<unknown> {
  const factor = Number(process.env.FUZZ_RUNS ?? 1);
  const seed = process.env.FUZZ_SEED;
  const path = process.env.FUZZ_PATH;
  return {
    numRuns: Math.max(1, Math.round(runs * (Number.isFinite(factor) && factor > 0 ? factor : 1))),
    ...(seed !== undefined ? { seed: Number(seed) } : {}),
    ...(path !== undefined ? { path } : {}),
  };
}

/** Percent-encodes the UTF-8 bytes of any string (encodeURIComponent throws on lone surrogates). */
export function formEncode(s: string): string {
  return [...Buffer.from(s, 'utf8')].map((b) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, '0')}`)).join('');
}

/** Code points that have broken parsers, databases and trimming before. */
const NASTY = ['\u0000', '\u0001', '\u001f', '\u007f', '\ud800', '\udbff', '\udc00', '\udfff', '\u00a0', '\u2003', '\u2028',
  '\u3000', '\ufeff', '\u200b', '\u0085', '\ufffe', '\uffff', '\u{1f600}', 'é', 'e\u0301', '"', '\\', '%', '+', '&', '=', ':', ' '];

/** Text of any code point, biased to the nasty ones (incl. U+0000 and unpaired surrogates). */
export const nastyString = (maxLength = 20) => fc.string({
  unit: fc.oneof(fc.constantFrom(...NASTY), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 })),
  maxLength,
});

/** Numbers at the edges of every type a field could be checked against. */
export const edgeNumber = fc.oneof(
  fc.constantFrom(0, -0, 1, -1, 0.1, 0.005, 1e-7, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), 2 ** 53, 2 ** 53 + 2, -(2 ** 53), 1e12, 1e15, 1e21, 1e308,
    Number.MAX_VALUE, Number.MIN_VALUE, 32767, 32768, 99, 100),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

/** Date-time strings at the edges: far past and future, odd offsets, leap seconds, bad calendars. */
export const edgeInstant = fc.oneof(
  fc.constantFrom('0001-01-01T00:00:00Z', '1900-01-01T00:00:00+00:00', '1957-12-31T23:59:59+10:00', '1969-12-31T23:59:59.999Z',
    '1970-01-01T00:00:00Z', '2024-02-29T12:00:00+10:00', '2023-02-29T12:00:00+10:00', '2024-05-01T24:00:00+10:00',
    '2024-05-01T23:59:60Z', '2024-05-01T13:45:00+14:00', '2024-05-01T13:45:00-12:00', '2024-05-01T13:45:00+99:99',
    '9999-12-31T23:59:59Z', '+275760-09-13T00:00:00Z', '2024-05-01', '2024-05-01T13:45:00', '2024-13-01T00:00:00Z'),
  fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString()),
);

/** Any JSON value, some of them deep (a nesting a recursive walk could overflow on). */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: nastyString() },
  { weight: 2, arbitrary: edgeNumber },
  // Deep, but within what JSON.stringify can serialise in the test; deeper bodies are built as text.
  { weight: 1, arbitrary: fc.integer({ min: 50, max: 1_500 }).map(deep) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 100_000 }).map((n) => 'x'.repeat(n)) },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}, [null], ['client_credentials']) },
);

/** Text of a JSON value nested `depth` deep around `inner` (a JSON text), without serialising it. */
export function deepJson(depth: number, inner = '"AUD"'): string {
  return `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;
}

function deep(depth: number): unknown {
  let v: unknown = 'AUD';
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { v };
  return v;
}

/**
 * What every answer must be: never a 5xx; a 4xx is problem+json naming where the fault is (or,
 * with `oauth`, RFC 6749 §5.2's {error, error_description}).
 */
export function assertAnswer(res: LightMyRequestResponse, options: { oauth?: boolean } = {}): void {
  assert.ok(res.statusCode < 500, `answered ${res.statusCode}: ${res.body.slice(0, 500)}`);
  if (res.statusCode < 400) return;
  const type = String(res.headers['content-type'] ?? '');
  const body = res.json() as Record<string, unknown>;
  if (options.oauth) {
    assert.match(type, /^application\/json/, `${res.statusCode} with content-type ${type}`);
    assert.equal(typeof body.error, 'string', res.body.slice(0, 300));
    assert.equal(typeof body.error_description, 'string', res.body.slice(0, 300));
    return;
  }
  assert.match(type, /^application\/problem\+json/, `${res.statusCode} with content-type ${type}`);
  for (const key of ['type', 'title', 'detail', 'code', 'instance']) assert.equal(typeof body[key], 'string', `problem without ${key}: ${res.body.slice(0, 300)}`);
  assert.equal(body.status, res.statusCode);
  if (body.code === 'validation_failed') {
    const errors = body.errors as Array<{ field?: unknown }>;
    assert.ok(Array.isArray(errors) && errors.length > 0, `validation_failed lists no errors: ${res.body.slice(0, 300)}`);
    for (const e of errors) assert.equal(typeof e.field, 'string', `an error names no field: ${JSON.stringify(e).slice(0, 200)}`);
  }
}

/**
 * Counts the 2xx answers of a property: a generator whose every case is refused at the edge would
 * never reach the handler, and its property would pass without testing anything. check() resets.
 */
export function okShare(minimum = 0.1) {
  let ok = 0;
  let all = 0;
  return {
    count(status: number) {
      all += 1;
      if (status < 300) ok += 1;
    },
    check() {
      const [seen, total] = [ok, all];
      ok = 0;
      all = 0;
      // A replayed case (FUZZ_PATH) is one run: nothing to say about the share.
      if (process.env.FUZZ_PATH === undefined) assert.ok(seen >= total * minimum, `only ${seen} of ${total} cases were accepted: the generator hardly tests the accepting path`);
    },
  };
}

/**
 * A fingerprint of every table of the public schema: its row count and the newest xmin. Any insert
 * or update gives a row a new, higher xmin; a delete lowers the count. Cheaper than hashing rows,
 * which made long runs quadratic as accepted uploads grew the tables.
 */
export async function tablesFingerprint(pool: Pool): Promise<string> {
  const { rows: tables } = await pool.query<{ name: string }>(
    "SELECT quote_ident(table_name) AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1");
  const parts = tables.map((t) => `SELECT '${t.name}' AS t, count(*) AS n, max(xmin::text::bigint) AS x FROM ${t.name}`);
  const { rows } = await pool.query(parts.join(' UNION ALL '));
  return JSON.stringify(rows);
}
