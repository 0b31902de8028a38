// Checking wagerline's optional request signature (docs/wallet.md, "Signing"), as an operator's
// wallet would: X-Wagerline-Timestamp (unix seconds) and X-Wagerline-Signature
// "v1=<hex HMAC-SHA256(secret, "<timestamp>.<raw body>")>". Written independently of the
// signer in src/modules/wallet, so the two check each other.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { errorAnswer, type Answer } from './codes.ts';

/** Requests signed further from the sandbox's clock than this are refused (replays). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** undefined when the signature holds, else the 401 answer. */
export function checkSignature(secret: string, headers: IncomingHttpHeaders, rawBody: string, now: Date): Answer | undefined {
  const timestamp = headers['x-wagerline-timestamp'];
  const given = headers['x-wagerline-signature'];
  if (typeof timestamp !== 'string' || typeof given !== 'string' || !/^\d{1,12}$/.test(timestamp)) {
    return errorAnswer('INVALID_SIGNATURE', 'missing X-Wagerline-Timestamp or X-Wagerline-Signature header');
  }
  const skew = Math.abs(now.getTime() / 1000 - Number(timestamp));
  if (skew > SIGNATURE_TOLERANCE_SECONDS) {
    return errorAnswer('INVALID_SIGNATURE', `the signature timestamp is ${Math.round(skew)} s away from now (at most ${SIGNATURE_TOLERANCE_SECONDS} s)`);
  }
  const expected = Buffer.from(`v1=${createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex')}`);
  const actual = Buffer.from(given);
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) {
    return errorAnswer('INVALID_SIGNATURE', 'X-Wagerline-Signature does not match the body and timestamp');
  }
  return undefined;
}
