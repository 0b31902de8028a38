// Checking wagerline's optional request signature (docs/wallet.md, "Signing"), as an operator's
// wallet would: the headers present, the timestamp near the sandbox's clock (no replays), and the
// signature computed by the shared wire protocol (src/wallet-protocol/signature.ts).
import type { IncomingHttpHeaders } from 'node:http';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, signatureMatches } from '../../wallet-protocol/signature.ts';
import { errorAnswer, type Answer } from './codes.ts';

/** Requests signed further from the sandbox's clock than this are refused (replays). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** undefined when the signature holds, else the 401 answer. */
export function checkSignature(secret: string, headers: IncomingHttpHeaders, rawBody: string, now: Date): Answer | undefined {
  const timestamp = headers[TIMESTAMP_HEADER];
  const given = headers[SIGNATURE_HEADER];
  if (typeof timestamp !== 'string' || typeof given !== 'string' || !/^\d{1,12}$/.test(timestamp)) {
    return errorAnswer('INVALID_SIGNATURE', 'missing X-Wagerline-Timestamp or X-Wagerline-Signature header');
  }
  const skew = Math.abs(now.getTime() / 1000 - Number(timestamp));
  if (skew > SIGNATURE_TOLERANCE_SECONDS) {
    return errorAnswer('INVALID_SIGNATURE', `the signature timestamp is ${Math.round(skew)} s away from now (at most ${SIGNATURE_TOLERANCE_SECONDS} s)`);
  }
  if (!signatureMatches(secret, timestamp, rawBody, given)) {
    return errorAnswer('INVALID_SIGNATURE', 'X-Wagerline-Signature does not match the body and timestamp');
  }
  return undefined;
}
