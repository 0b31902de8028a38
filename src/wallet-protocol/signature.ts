// The optional request signature of wallet calls (docs/wallet.md, "Signing"): the caller sends
// X-Wagerline-Timestamp (unix seconds) and X-Wagerline-Signature "v1=<hex HMAC-SHA256(secret,
// "<timestamp>.<raw body>")>"; a wallet recomputes it over the raw body and compares.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const TIMESTAMP_HEADER = 'x-wagerline-timestamp';
export const SIGNATURE_HEADER = 'x-wagerline-signature';

/** v1=<hex HMAC-SHA256 of "<timestamp>.<body>"> with the tenant's signing secret. */
export function signature(secret: string, timestamp: string, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** Whether `given` is the signature of this body and timestamp, compared in constant time. */
export function signatureMatches(secret: string, timestamp: string, body: string, given: string): boolean {
  const expected = Buffer.from(signature(secret, timestamp, body));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
