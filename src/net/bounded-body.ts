// Reading an HTTP answer with a bound on its size. A wallet's answer is a few hundred bytes (spec
// 2.6); one far larger — a wallet streaming a file, a misrouted proxy, a URL that is no wallet —
// is not read further, so answers read whole, hundreds at a time, cannot exhaust the process.

/** Most bytes of an answer read. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

export class AnswerTooLarge extends Error {
  constructor() {
    super(`answer over ${MAX_RESPONSE_BYTES} bytes: not read further`);
  }
}

/**
 * The body as text; AnswerTooLarge (after `abort()`, which must stop the transfer) once it passes
 * MAX_RESPONSE_BYTES, or at once when its declared length does.
 */
export async function boundedText(body: AsyncIterable<Buffer>, declared: string | string[] | undefined, abort: () => void): Promise<string> {
  if (Number(declared) > MAX_RESPONSE_BYTES) {
    abort();
    throw new AnswerTooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_RESPONSE_BYTES) {
      abort();
      throw new AnswerTooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
