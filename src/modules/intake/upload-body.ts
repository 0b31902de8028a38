// The body of an upload, from bytes to a value, for the upload routes only (intake.http.ts installs
// it as their JSON parser). It keeps what Fastify's JSON parser does (the route's body limit,
// secure-json-parse refusing __proto__ and constructor.prototype keys) and adds two rules:
// - UTF-8, strictly. Fastify decodes invalid bytes to U+FFFD, so two bet ids that differ only in
//   such a byte became one key and the second bet replaced the first. An invalid byte is now a 400,
//   and a body declared in another charset a 415 (checked with the Content-Type, before it is read).
// - Each key once per object: JSON.parse keeps the last of two, silently (duplicate-keys.ts).
import secureJson from 'secure-json-parse';
import { AppError, echo, problemSentence } from '../../errors.ts';
import { decodeUtf8 } from '../../racing/values.ts';
import { keySegment } from './batch.ts';
import { duplicateKeyPath } from './duplicate-keys.ts';
import { holdsNul, nulPaths } from '../../http/text-rules.ts';

/** Labels of UTF-8 a charset parameter may give (WHATWG Encoding: "utf8" is the same encoding). */
const UTF8_LABELS = new Set(['utf-8', 'utf8']);

/** The charset parameter of a Content-Type, lower case and unquoted; undefined when there is none. */
export function charsetOf(contentType: string): string | undefined {
  for (const param of contentType.split(';').slice(1)) {
    const eq = param.indexOf('=');
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    return param.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1').toLowerCase();
  }
  return undefined;
}

/** A 415 unless the Content-Type's charset, when it names one, is UTF-8. */
export function requireUtf8(contentType: string): void {
  const charset = charsetOf(contentType);
  if (charset !== undefined && !UTF8_LABELS.has(charset)) {
    throw new AppError('unsupported_media_type',
      `the body must be UTF-8 JSON: Content-Type charset ${echo(charset)} is not accepted (send charset=utf-8, or no charset)`);
  }
}

/** The bets' index and id of a path under "bets", for an upload's {index, id, field, message}. */
function betOf(body: unknown, path: string[]): { index: number | null; id: string | number | null } {
  if (path[0] !== 'bets' || path.length < 3 || !/^\d+$/.test(path[1]!)) return { index: null, id: null };
  const index = Number(path[1]);
  // The scan reads the text, the value keeps the last of repeated keys: a first "bets" holding the
  // repeat may have been replaced by a later one, of another shape.
  const bets = (body as { bets?: unknown }).bets;
  const bet = Array.isArray(bets) ? bets[index] as { id?: unknown } | null | undefined : undefined;
  const id = bet && typeof bet === 'object' ? bet.id : undefined;
  return { index, id: typeof id === 'string' || typeof id === 'number' ? id : null };
}

/**
 * Bytes → UTF-8 text → JSON value, refusing invalid UTF-8 and invalid JSON (400 malformed_json),
 * __proto__ and constructor.prototype keys (400 malformed_json, as Fastify's parser answers them)
 * and a key twice in one object (400 validation_failed, naming where).
 */
export function parseUploadBody(bytes: Buffer): unknown {
  const decoded = decodeUtf8(bytes);
  if (!('text' in decoded)) {
    throw new AppError('malformed_json',
      `the body is not valid UTF-8: byte ${decoded.byte} at offset ${decoded.invalidAt} is not part of a UTF-8 character (upload bodies are UTF-8 JSON)`);
  }
  const { text } = decoded;
  if (text.trim() === '') throw new AppError('malformed_json', 'the body is empty: send a JSON object {meeting_id, race_number, bets}');
  let body: unknown;
  try {
    body = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    throw new AppError('malformed_json', `the body is not valid JSON: ${(error as Error).message}`);
  }
  const path = duplicateKeyPath(text, body);
  if (path) {
    const field = path.map(keySegment).join('/');
    const message = 'repeats a key given earlier in the same object (JSON keys must be unique: which of the two values would count?)';
    throw new AppError('validation_failed', `the batch was rejected, nothing was stored: ${problemSentence(`body/${field}`, message)}`,
      { extensions: { errors: [{ ...betOf(body, path), field, message }] } });
  }
  refuseNul(body);
  return body;
}

const NUL_MESSAGE = 'must not contain U+0000 (a NUL character)';

/**
 * U+0000 anywhere: refused here, in the upload's terms ({index, id, field: bets/3/user_id}), before
 * the rule every route applies (http/text-rules.ts) answers it without the bet's index and id.
 */
function refuseNul(body: unknown): void {
  if (!holdsNul(body)) return;
  const errors = nulPaths(body, '').map((at) => {
    // nulPaths has escaped the byte in a key already: the path is safe to answer as it is.
    const field = at.slice(1);
    return { ...betOf(body, field.split('/')), field, message: NUL_MESSAGE };
  });
  throw new AppError('validation_failed', `the batch was rejected, nothing was stored: ${problemSentence(`body/${errors[0]!.field}`, NUL_MESSAGE)}`,
    { extensions: { errors } });
}
