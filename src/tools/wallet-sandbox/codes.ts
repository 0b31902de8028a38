// Every error code the sandbox answers, in the body shape of spec 2.6: {message, code, statusCode}.
// docs/wallet-sandbox.md lists them all (a test keeps the two in step).

export const SANDBOX_CODES = {
  VALIDATION_ERROR: { status: 400, meaning: 'The body is not JSON (a token request: not a JSON object or a form), or a field is missing, of the wrong type or out of range (a confirm or a credit of 0.00 included).' },
  INSUFFICIENT_FUNDS: { status: 400, meaning: 'The cash or bonus balance is lower than the amount to reserve or debit.' },
  AMOUNT_EXCEEDS_RESERVED: { status: 400, meaning: 'confirm: the accepted amount is larger than the funds held by the reserve.' },
  REFUND_EXCEEDS_BET: { status: 400, meaning: 'refundBet: the amount is larger than what is still held or confirmed for the bet.' },
  DEBIT_EXCEEDS_WINNINGS: { status: 400, meaning: 'debit: the amount is larger than the winnings paid on the bet (settleBet) and not yet taken back.' },
  BONUS_FLAG_MISMATCH: { status: 400, meaning: 'confirm/refundBet/credit betpartialrefund: bonusFlag differs from the reserve of the bet.' },
  USER_MISMATCH: { status: 400, meaning: 'The bet was reserved for another userId.' },
  UNKNOWN_TRANSACTION_TYPE: { status: 400, meaning: 'debit/credit: transactionType is not one of the values docs/wallet.md lists for that call.' },
  UNSUPPORTED_GRANT_TYPE: { status: 400, meaning: '/auth/token: grant_type is not client_credentials.' },
  INVALID_CLIENT: { status: 401, meaning: '/auth/token: unknown client_id or wrong client_secret.' },
  INVALID_TOKEN: { status: 401, meaning: 'Missing, unknown, expired or revoked bearer token.' },
  INVALID_API_KEY: { status: 401, meaning: 'Missing or wrong API key header (api_key authentication).' },
  INVALID_SIGNATURE: { status: 401, meaning: 'With a signing secret: the signature headers are missing, do not match the body, or are more than 300 s old.' },
  UNKNOWN_BET: { status: 404, meaning: 'confirm/refundBet/settleBet/debit/credit for a bet with no successful reserve.' },
  NOT_FOUND: { status: 404, meaning: 'No such path (or /auth/token when the sandbox uses API keys).' },
  METHOD_NOT_ALLOWED: { status: 405, meaning: 'The path exists with another method.' },
  DUPLICATE_BET: { status: 409, meaning: 'reserve: the bet already has a reserve under another transactionId.' },
  BET_STATE_CONFLICT: { status: 409, meaning: 'The bet is not in a state that allows the call (confirm twice, confirm after refund, settleBet or a credit before confirm, settleBet or a cash-out after a full refund, a cash-out of a settled bet, settleBet, a cash-out, a partial refund, a debit or refundBet after a cash-out, refundBet of a bet whose winnings are not taken back).' },
  TRANSACTION_MISMATCH: { status: 409, meaning: 'The transactionId was already used with another call, bet, user, bonusFlag, amount or transactionType.' },
  PAYLOAD_TOO_LARGE: { status: 413, meaning: 'The body is over 1 MiB.' },
  INTERNAL_ERROR: { status: 500, meaning: 'An unexpected error inside the sandbox (also the default body of injected faults).' },
  SIMULATED_FAILURE: { status: 503, meaning: 'A failure drawn by --fail-rate; nothing was applied.' },
} as const satisfies Record<string, { status: number; meaning: string }>;

export type SandboxCode = keyof typeof SANDBOX_CODES;

export interface ErrorBody {
  message: string;
  code: SandboxCode;
  statusCode: number;
}

export interface Answer {
  status: number;
  body: unknown;
}

export function errorAnswer(code: SandboxCode, message: string): Answer {
  const status = SANDBOX_CODES[code].status;
  return { status, body: { message, code, statusCode: status } satisfies ErrorBody };
}
