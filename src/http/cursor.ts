// Page cursors of every keyset-paginated route. A cursor is opaque to clients but must be one this
// service issued for the same listing: "c1.<payload>.<mac>", the payload base64url JSON of the
// last row's key (an array), the mac an HMAC-SHA256 (truncated to 128 bits) over the version, the
// route's scope (e.g. tenant, meeting, race, filter) and the payload. Anything else — a forged or
// edited cursor, one with an extra item, one from another listing — is a 400 before any SQL; the
// route's shape check still guards the values (a key change between releases bumps the version).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from '../errors.ts';

const VERSION = 'c1';
const MAC_BYTES = 16;
/** Longer than any cursor we issue (keys are short); refused unread. */
export const MAX_CURSOR_LENGTH = 500;

export interface CursorCodec {
  /** The cursor of a page ending at `key`, valid only for listings of the same `scope`. */
  encode(scope: string, key: readonly unknown[]): string;
  /** The key of a cursor this codec issued for `scope`, checked by `shape`; a 400 otherwise. */
  decode<T>(cursor: string, scope: string, shape: (key: unknown[]) => T | undefined): T;
}

function notIssued(): AppError {
  return new AppError('bad_request', 'cursor is not one this service issued for this listing (pass next_cursor back unchanged, with the same parameters)');
}

/** key: 32 bytes derived for this purpose only (SecretBox.derive('cursor')). */
export function createCursorCodec(key: Buffer): CursorCodec {
  const mac = (scope: string, payload: string) =>
    createHmac('sha256', key).update(`${VERSION}\n${scope}\n${payload}`).digest().subarray(0, MAC_BYTES);
  return {
    encode(scope, values) {
      const payload = Buffer.from(JSON.stringify(values)).toString('base64url');
      return `${VERSION}.${payload}.${mac(scope, payload).toString('base64url')}`;
    },
    decode(cursor, scope, shape) {
      if (cursor.length > MAX_CURSOR_LENGTH) throw notIssued();
      const [version, payload, tag, ...rest] = cursor.split('.');
      if (version !== VERSION || !payload || !tag || rest.length) throw notIssued();
      const sent = Buffer.from(tag, 'base64url');
      if (sent.length !== MAC_BYTES || !timingSafeEqual(sent, mac(scope, payload))) throw notIssued();
      let values: unknown;
      try {
        values = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      } catch {
        throw notIssued();
      }
      const key = Array.isArray(values) ? shape(values) : undefined;
      if (key === undefined) throw notIssued();
      return key;
    },
  };
}
