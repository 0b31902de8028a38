// The one place that reads process.env. Every setting is declared once in SETTINGS, with its
// default and its documentation; the README's configuration table lists exactly these names
// (a test keeps the two in step).
import net from 'node:net';
import path from 'node:path';

export class ConfigError extends Error {
  constructor(readonly variable: string, problem: string) {
    super(`${variable}: ${problem}`);
  }
}

type Parser<T> = (raw: string, name: string) => T;

const text: Parser<string> = (raw) => raw;

// A comma-separated list of codes (letters, digits, _ and -), upper-cased, at least one.
const codeList: Parser<readonly string[]> = (raw, name) => {
  const codes = raw.split(',').map((c) => c.trim().toUpperCase()).filter(Boolean);
  const wrong = codes.find((c) => !/^[A-Z0-9_-]{1,32}$/.test(c));
  if (!codes.length || wrong !== undefined) throw new ConfigError(name, `must be a comma-separated list of codes, got "${raw}"`);
  return Object.freeze([...new Set(codes)]);
};

function integer(min: number, max: number): Parser<number> {
  return (raw, name) => {
    if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
    const value = Number(raw);
    if (value < min || value > max) {
      throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
    }
    return value;
  };
}

/** 0 (off), or a whole number from min to max. */
function offOr(min: number, max: number): Parser<number> {
  return (raw, name) => {
    const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
    if (value !== 0 && !(value >= min && value <= max)) {
      throw new ConfigError(name, `must be 0 (off) or a whole number between ${min} and ${max}, got "${raw}"`);
    }
    return value;
  };
}

/**
 * The floor of WAGERLINE_DB_QUERY_TIMEOUT_MS: above the reports' own statement_timeout (120 s,
 * reports.service.ts), so that a report the server still runs is never cut on the client's side.
 */
export const QUERY_TIMEOUT_FLOOR_MS = 125000;

function oneOf<T extends string>(...values: T[]): Parser<T> {
  return (raw, name) => {
    if (!(values as string[]).includes(raw)) {
      throw new ConfigError(name, `must be one of ${values.join(', ')}, got "${raw}"`);
    }
    return raw as T;
  };
}

const postgresUrl: Parser<string> = (raw, name) => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, 'is not a URL (expected postgres://user@host:port/database)');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError(name, `must use postgres:// or postgresql://, got "${url.protocol}"`);
  }
  return raw;
};

/**
 * Fastify's trustProxy: `off`, or the proxies' addresses and CIDR ranges, comma-separated. No hop
 * count: it would believe X-Forwarded-For from whoever connects directly, letting any client name
 * its own address (and slip the token endpoint's rate limit).
 */
const trustProxy: Parser<false | string> = (raw, name) => {
  if (raw === 'off') return false;
  const entries = raw.split(',').map((e) => e.trim());
  const wrong = entries.find((e) => {
    const [address, bits, extra] = e.split('/');
    const family = net.isIP(address ?? '');
    const maxBits = family === 6 ? 128 : 32;
    return !family || extra !== undefined || (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= maxBits));
  });
  if (wrong !== undefined) throw new ConfigError(name, `must be off, or the proxies' addresses or CIDR ranges, comma-separated, got "${wrong}"`);
  return entries.join(',');
};

const secretKey: Parser<Buffer> = (raw, name) => {
  const key = Buffer.from(raw, 'base64');
  if (key.length !== 32) {
    throw new ConfigError(name, 'must be 32 bytes encoded in base64 (openssl rand -base64 32)');
  }
  return key;
};

interface Setting<T> {
  parse: Parser<T>;
  default?: string;
  doc: string;
}

function setting<T, D extends string | undefined = undefined>(parse: Parser<T>, doc: string, fallback?: D) {
  return { parse, doc, default: fallback as D };
}

export const SETTINGS = {
  DATABASE_URL: setting(postgresUrl, 'PostgreSQL to use. Unset: an embedded PostgreSQL is started with its data in WAGERLINE_DATA_DIR.'),
  HOST: setting(text, 'Address the HTTP server listens on.', '127.0.0.1'),
  PORT: setting(integer(0, 65535), 'Port the HTTP server listens on.', '8080'),
  LOG_LEVEL: setting(oneOf('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'), 'Log level of the JSON logs on stderr.', 'info'),
  WAGERLINE_TRUST_PROXY: setting(trustProxy, 'The reverse proxies in front of the server, whose X-Forwarded-For names the client: their addresses or CIDR ranges, comma-separated (e.g. 10.0.0.0/8). A bet records the client address it gives, and the token endpoint limits by it. off: the address of whoever connects.', 'off'),
  WAGERLINE_DB_CONNECT_TIMEOUT_MS: setting(integer(100, 600000), 'Bound on opening one database connection (the pool\'s, the migrations\', the LISTEN connections\'): a database host that does not answer (packets dropped) fails requests with 503 service_unavailable and /readyz with 503 after this long, instead of after minutes. Waiting for a free connection of a busy pool is not bounded by it.', '5000'),
  WAGERLINE_DB_KEEPALIVE_MS: setting(integer(1000, 7200000), 'Idle time after which a database connection (the pool\'s, the migrations\', the LISTEN connections\') is probed by TCP keepalive, then every second, 10 times: a connection to a host that fell silent (packets dropped) is dropped about 10 s after this instead of after hours, and the next query opens a new one.', '10000'),
  WAGERLINE_DB_QUERY_TIMEOUT_MS: setting(offOr(QUERY_TIMEOUT_FLOOR_MS, 3600000), 'serve only: longest wait for the answer to one statement on the pool. Past it the request fails with 503 service_unavailable and the connection is dropped, instead of waiting up to ~15 minutes for the operating system when the host fell silent while the statement was on its way. It does not stop the statement on the server, so it is kept above every statement\'s own bound (at least 125000: reports run up to 120 s); 0: off.', '180000'),
  WAGERLINE_DATA_DIR: setting(text, 'Directory for the embedded database and the generated secret key.', '.wagerline'),
  WAGERLINE_EMBEDDED_PG_PORT: setting(integer(1, 65535), 'Port of the embedded PostgreSQL (only when DATABASE_URL is unset).', '54329'),
  WAGERLINE_SECRET_KEY: setting(secretKey, 'Key (base64, 32 bytes) that encrypts stored secrets (token signing keys, wallet credentials) and signs page cursors. Unset: generated once into WAGERLINE_DATA_DIR/secret.key. Every process on one database needs the same key.'),
  WAGERLINE_TOKEN_TTL_SECONDS: setting(integer(60, 86400), 'Lifetime of access tokens issued by /oauth/token.', '3600'),
  WAGERLINE_AUTH_REFRESH_SECONDS: setting(integer(1, 60), 'How often each process reloads revoked clients and signing keys; a revoked client is refused within this time.', '10'),
  WAGERLINE_TOKEN_RATE_LIMIT: setting(integer(1, 100000), 'Token requests allowed per client address per minute.', '120'),
  WAGERLINE_BODY_LIMIT_BYTES: setting(integer(1024, 1 << 30), 'Largest request body accepted by ordinary routes (uploads have their own limit).', '1048576'),
  WAGERLINE_UPLOAD_BODY_LIMIT_BYTES: setting(integer(1024, 1 << 30), 'Largest request body accepted by the upload routes.', '8388608'),
  WAGERLINE_UPLOAD_USER_STATES: setting(codeList, 'Comma-separated values accepted in an uploaded bet\'s user_state (case-insensitive).', 'NSW,VIC,QLD,SA,WA,TAS,NT,ACT'),
  WAGERLINE_WALLET_TIMEOUT_MS: setting(integer(10, 600000), 'Bound on one wallet HTTP call, from the ask (waiting for a free connection included) to last byte (10 seconds).', '10000'),
  WAGERLINE_WALLET_LEASE_MS: setting(integer(1000, 3600000), 'How long a claimed wallet call stays leased to its sender (renewed while in flight); after a crash it is re-sent once this runs out. Must exceed WAGERLINE_WALLET_TIMEOUT_MS.', '15000'),
  WAGERLINE_PRIVATE_NETWORK: setting(oneOf('platform', 'any'), 'Who may point a tenant\'s wallet or JWKS URL at a private address (loopback, RFC 1918, link-local…). platform: only the platform\'s word allows one (the CLI\'s --private-network or an IP address it gives, a token with scope platform); any other URL must lead to public addresses, checked when saved and at every connection. any: every URL may (every tenant is trusted).', 'platform'),
  WAGERLINE_WALLET_WORKER: setting(oneOf('on', 'off'), 'Whether serve runs the wallet delivery worker.', 'on'),
  WAGERLINE_WALLET_POLL_MS: setting(integer(50, 600000), 'How often the wallet worker looks for due calls besides LISTEN/NOTIFY wake-ups (retries, expired leases).', '1000'),
  WAGERLINE_WALLET_PLACEMENT_WINDOW_MS: setting(integer(1000, 3600000), 'For a reserve recorded without its next call (the wallet\'s plain reserve): how long the caller has to queue the bet\'s next call (confirm or refundBet) before the reservation is released with a refundBet. Also part of how long a bet may stay pending before it reads as interrupted.', '60000'),
  WAGERLINE_PLACEMENT_LOCK_TIMEOUT_MS: setting(integer(100, 60000), 'Longest a placement waits for each lock, once the wallet reserved its stake: a race held by a change (a scratching, a status), a runner\'s liability held by other bets; past it the bet is rejected (race_busy) and the stake returned.', '5000'),
  WAGERLINE_WALLET_RESERVE_RETRIES: setting(integer(0, 10), 'How many more times a reserve with an unknown outcome (timeout, network error, 5xx) is asked again, same transactionId, while placement waits.', '2'),
  WAGERLINE_SHUTDOWN_TIMEOUT_MS: setting(integer(100, 3600000), 'Bound on serve\'s graceful shutdown after SIGTERM or SIGINT: past it the connections left (a client whose upload trickles in) are closed and serve exits 1, with one line saying what it cut. Wallet calls in flight stay leased in the outbox and are sent again after their lease. Keep it above WAGERLINE_WALLET_TIMEOUT_MS and below the grace period of whatever sends the signal (Kubernetes: 30 s).', '25000'),
  WAGERLINE_SETTLEMENT_BATCH: setting(integer(1, 100000), 'Bets settled per transaction when a race is settled.', '1000'),
  WAGERLINE_SETTLEMENT_POLL_MS: setting(integer(50, 600000), 'How often serve looks for races queued for settlement (results through the admin API, settlements a stopped process left half-way).', '1000'),
  WAGERLINE_BACKOFFICE_CONNECTIONS_PER_CLIENT: setting(integer(1, 10000), 'Live WebSocket connections (betUpdated) one back-office client may hold on /backoffice/query in one process; one more is refused at connection_init (4429 TOO_MANY_CONNECTIONS).', '20'),
  WAGERLINE_FRONTEND_CONNECTIONS_PER_USER: setting(integer(1, 10000), 'Live WebSocket connections (myBetUpdated) one frontend user of a tenant may hold on /graphql in one process; one more is refused at connection_init (4429 TOO_MANY_CONNECTIONS).', '20'),
  WAGERLINE_BACKOFFICE_INTROSPECTION: setting(oneOf('on', 'off'), 'Whether the back-office GraphQL endpoint answers introspection queries (__schema, __type).', 'off'),
  WAGERLINE_USER_TOKEN_CACHE_SECONDS: setting(integer(0, 60), 'How long a process reuses a user token whose RS256 signature it verified, without checking the signature again (jwt mode); exp and nbf are checked on every request, and a changed tenant set-auth drops it at once. 0: verify every request.', '60'),
  WAGERLINE_BACKOFFICE_CLIENT_CACHE_SECONDS: setting(integer(0, 60), 'How long a process reuses a back-office client it identified by x-api-key before reading it again; a revoked client, a disabled tenant or a changed grant takes effect on the back-office within this time. 0: read on every request.', '5'),
} satisfies Record<string, Setting<unknown>>;

type Settings = typeof SETTINGS;
type Parsed<K extends keyof Settings> = ReturnType<Settings[K]['parse']>;
type WithDefault = { [K in keyof Settings]: Settings[K]['default'] extends string ? K : never }[keyof Settings];

export type Config = Readonly<
  { [K in keyof Settings]: K extends WithDefault ? Parsed<K> : Parsed<K> | undefined }
>;

/** Reads and validates every setting; throws ConfigError naming the first wrong variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(SETTINGS) as [string, Setting<unknown>][]) {
    const raw = env[name];
    const value = raw === undefined || raw === '' ? spec.default : raw;
    out[name] = value === undefined ? undefined : spec.parse(value, name);
  }
  out.WAGERLINE_DATA_DIR = path.resolve(out.WAGERLINE_DATA_DIR as string);
  // A lease shorter than a call's bound would let a second sender take a call still in flight.
  if ((out.WAGERLINE_WALLET_LEASE_MS as number) <= (out.WAGERLINE_WALLET_TIMEOUT_MS as number)) {
    throw new ConfigError('WAGERLINE_WALLET_LEASE_MS', `must be more than WAGERLINE_WALLET_TIMEOUT_MS (${out.WAGERLINE_WALLET_TIMEOUT_MS as number} ms), got ${out.WAGERLINE_WALLET_LEASE_MS as number}`);
  }
  return Object.freeze(out) as Config;
}
