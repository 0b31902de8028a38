// The sandbox's HTTP server (node:http, so faults like a reset socket or an HTML body are exact):
// routes of spec 4.3 plus GET /healthz, /balances/{userId}, /transactions?betId=.
import { setMaxListeners } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAuthenticator } from './auth.ts';
import { errorAnswer, type Answer } from './codes.ts';
import { createFaultQueue } from './faults.ts';
import { parseBody, readBody, sleep, writeAnswer, writeJson, type ErrorStyle } from './http-io.ts';
import { fingerprint } from './ledger.ts';
import { createMemoryStore } from './memory-store.ts';
import { centsToDollars, parseDollars } from '../../racing/money.ts';
import { createPgStore } from './pg-store.ts';
import { listen } from '../listen.ts';
import { checkSignature } from './signature.ts';
import type { RunFlags, Store } from './store.ts';
import { TRANSACTION_OPS, type FaultSpec, type RecordedRequest, type SandboxOptions, type SeededBet, type TransactionOp, type WalletSandbox } from './types.ts';
import { isAnswer, MAX_CENTS, TRANSACTION_TYPES, validateTransaction, type TxRequest } from './validate.ts';

/** The most requests the log keeps by default (the oldest tenth is dropped when full). */
const REQUEST_LOG_LIMIT = 100_000;

const UUID_PATH = /^\/balances\/([^/]+)$/;

function isTransactionOp(op: string): op is TransactionOp {
  return (TRANSACTION_OPS as readonly string[]).includes(op);
}

/** A balance given in dollars ("1000", "12.5") → cents; throws on anything else. */
function dollarsToCents(text: string): number {
  const cents = parseDollars(text);
  if (cents === undefined) throw new Error(`"${text}" is not an amount in dollars with at most two decimals`);
  if (cents > MAX_CENTS) throw new Error(`"${text}" is too large`);
  return Number(cents);
}

function checkOptions(o: SandboxOptions): void {
  if (o.failRate !== undefined && !(o.failRate >= 0 && o.failRate <= 1)) throw new Error('failRate must be between 0 and 1');
  if (o.latencyMs !== undefined && !(Number.isInteger(o.latencyMs) && o.latencyMs >= 0)) throw new Error('latencyMs must be a non-negative integer');
  if (o.auth.kind === 'client_credentials' && (!o.auth.clientId || !o.auth.clientSecret)) throw new Error('clientId and clientSecret are required');
  if (o.auth.kind === 'api_key' && !o.auth.apiKey) throw new Error('apiKey is required');
}

export async function startWalletSandbox(options: SandboxOptions): Promise<WalletSandbox> {
  checkOptions(options);
  const now = options.now ?? (() => new Date());
  const random = options.random ?? Math.random;
  const breaks = new Set(options.breaks ?? []);
  const unit = options.amountUnit ?? 'dollars';
  const opening = { cash: dollarsToCents(options.openingBalance ?? '1000.00'), bonus: dollarsToCents(options.openingBonus ?? '0.00') };
  const store: Store = options.store?.kind === 'postgres'
    ? createPgStore(options.store.pool, options.store.schema ?? 'wallet_sandbox', opening)
    : createMemoryStore(opening);
  await store.init();

  const auth = createAuthenticator(options.auth, now);
  const faults = createFaultQueue();
  const log: RecordedRequest[] = [];
  // The request log serves tests' assertions; a sandbox left running under load must not grow
  // without bound, so only the latest requests are kept (the ledger keeps every transaction:
  // idempotency needs them).
  const logLimit = options.requestLogLimit ?? REQUEST_LOG_LIMIT;
  const closing = new AbortController();
  // Every request delayed by --latency-ms waits on this one signal (each listener is removed when
  // its wait ends), so hundreds at once are expected, not a leak.
  setMaxListeners(0, closing.signal);
  const load = { now: 0, peak: 0 };
  const style: ErrorStyle = breaks.has('error-text') ? 'error-text' : breaks.has('error-shape') ? 'error-shape' : 'spec';
  const flags: RunFlags = {
    ignoreBonus: breaks.has('bonus'), ignorePartial: breaks.has('partial'), reapplyOnReplay: breaks.has('idempotency'),
    ignoreMismatch: breaks.has('mismatch'), racy: breaks.has('race'), settleOnce: breaks.has('settle-once'),
    bonusWinnings: breaks.has('bonus-winnings'),
  };
  const validateOptions = {
    unit,
    refuseExtraFields: breaks.has('extra-fields'),
    allowedTypes: (op: TransactionOp) => (TRANSACTION_TYPES[op] ?? [])
      .filter((t) => !breaks.has('transaction-types') || (t !== 'betwincancelled' && t !== 'betpartialrefund')),
  };

  /** The transaction calls of spec 4.3: latency, random failures, auth, validation, the store. */
  async function transaction(op: TransactionOp, req: IncomingMessage, raw: string, parsed: { ok: boolean; value?: unknown }): Promise<Answer> {
    await sleep((options.latencyMs ?? 0) + (breaks.has('slow') ? options.slowMs ?? 11_000 : 0), closing.signal);
    if ((options.failRate ?? 0) > 0 && random() < options.failRate!) {
      return errorAnswer('SIMULATED_FAILURE', 'simulated wallet failure (--fail-rate); nothing was applied');
    }
    const denied = breaks.has('auth') ? undefined : auth.check(req.headers) ?? (options.signingSecret ? checkSignature(options.signingSecret, req.headers, raw, now()) : undefined);
    if (denied) return denied;
    if (!parsed.ok) return errorAnswer('VALIDATION_ERROR', 'the body is not valid JSON');
    const tx = validateTransaction(op, parsed.value, validateOptions);
    if (isAnswer(tx)) return tx;
    // --break whole-units: the cents of every dollar amount are dropped (an integer-dollar wallet).
    if (breaks.has('whole-units') && unit === 'dollars') tx.amount = tx.amount - (tx.amount % 100);
    return store.execute(tx, fingerprint(tx), flags, now());
  }

  async function inspect(req: IncomingMessage, url: URL): Promise<Answer> {
    const denied = breaks.has('auth') ? undefined : auth.check(req.headers);
    if (denied) return denied;
    const balances = UUID_PATH.exec(url.pathname);
    if (balances) {
      const userId = decodeURIComponent(balances[1]!);
      const b = await store.balances(userId);
      return { status: 200, body: { userId: userId.toLowerCase(), known: b.known, cash: centsToDollars(b.cash), bonus: centsToDollars(b.bonus), reserved: centsToDollars(b.reserved) } };
    }
    const betId = url.searchParams.get('betId');
    if (!betId) return errorAnswer('VALIDATION_ERROR', 'the betId query parameter is required');
    return { status: 200, body: { betId: betId.toLowerCase(), transactions: await store.transactions(betId) } };
  }

  /** Performs a scripted fault; returns the status answered (0 for none). */
  function misbehave(fault: FaultSpec, res: ServerResponse): number {
    switch (fault.kind) {
      case 'hang':
        return 0; // the response stays open until close() destroys the connection
      case 'stall':
        // Headers and the start of a body, then nothing: only a bound on the last byte ends it.
        res.writeHead(fault.status ?? 200, { 'content-type': 'application/json' }).write('{"success":');
        return fault.status ?? 200;
      case 'reset':
        res.socket?.destroy();
        return 0;
      case 'garbage':
        res.writeHead(fault.status ?? 200, { 'content-type': 'application/json' }).end('{"success": tru');
        return fault.status ?? 200;
      case 'empty':
        res.writeHead(fault.status ?? 200, { 'content-type': 'application/json', 'content-length': 0 }).end();
        return fault.status ?? 200;
      case 'html':
        res.writeHead(fault.status ?? 200, { 'content-type': 'text/html' }).end('<html><body><h1>Bad Gateway</h1></body></html>');
        return fault.status ?? 200;
      default: {
        const status = fault.status ?? 500;
        const body = fault.body ?? { message: 'injected fault', code: 'INTERNAL_ERROR', statusCode: status };
        writeAnswer(res, { status, body }, 'spec');
        return status;
      }
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = now();
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const op = path.slice(1);
    const raw = await readBody(req);
    const parsed = raw === undefined ? { ok: false } : raw === '' ? { ok: false } : parseBody(raw, req.headers['content-type']);
    const body = parsed.ok ? (parsed as { value: unknown }).value : raw;
    const entry: RecordedRequest = {
      op: req.method === 'GET' ? (path.startsWith('/balances/') ? 'balances' : op) : op,
      transactionId: typeof (body as { transactionId?: unknown })?.transactionId === 'string' ? (body as { transactionId: string }).transactionId : undefined,
      body, status: 0, at,
    };
    if (log.length >= logLimit) log.splice(0, Math.max(1, Math.floor(logLimit / 10)));
    log.push(entry);
    const isPost = req.method === 'POST';
    if (isPost && isTransactionOp(op)) {
      // Transaction calls being handled at once, for tests of the caller's concurrency limit.
      load.now++;
      load.peak = Math.max(load.peak, load.now);
      res.once('close', () => load.now--);
    }
    const fault = isPost ? faults.take(op) : undefined;
    if (fault && fault.kind !== 'apply-then-fail') {
      entry.status = misbehave(fault, res);
      return;
    }
    let answer: Answer;
    if (raw === undefined) answer = errorAnswer('PAYLOAD_TOO_LARGE', 'the body is over 1 MiB');
    else if (path === '/healthz' && req.method === 'GET') answer = { status: 200, body: { status: 'ok' } };
    else if (isPost && isTransactionOp(op)) answer = await transaction(op, req, raw, parsed);
    else if (isPost && op === 'auth/token') answer = auth.issue(body, breaks.has('token-shape'));
    else if (req.method === 'GET' && (UUID_PATH.test(path) || path === '/transactions')) answer = await inspect(req, url);
    else if (isTransactionOp(op) || op === 'auth/token' || path === '/healthz' || UUID_PATH.test(path) || path === '/transactions') {
      answer = errorAnswer('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${path}`);
    } else answer = errorAnswer('NOT_FOUND', `no route ${req.method} ${path}`);
    if (fault) {
      // apply-then-fail: the call above took effect; the caller is told it failed.
      answer = { status: fault.status ?? 500, body: { message: 'injected fault after applying', code: 'INTERNAL_ERROR', statusCode: fault.status ?? 500 } };
    }
    entry.status = answer.status;
    if (path === '/healthz' || answer.status < 400) writeJson(res, answer.status, answer.body);
    else writeAnswer(res, answer, style);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (closing.signal.aborted) return void res.socket?.destroy();
      if (!res.headersSent) writeAnswer(res, errorAnswer('INTERNAL_ERROR', 'unexpected sandbox error'), style);
      process.stderr.write(`wallet-sandbox: ${(error as Error).stack ?? String(error)}\n`);
    });
  });
  server.keepAliveTimeout = 30_000;
  // A port in use or a host it cannot listen on is a ListenError, which the CLI words as such.
  await listen(server, options.host ?? '127.0.0.1', options.port ?? 0);
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  let closed: Promise<void> | undefined;
  return {
    url: `http://${host}:${address.port}`,
    close() {
      closed ??= new Promise<void>((resolve) => {
        closing.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
    injectFaults: (list) => faults.add(list),
    requests: () => log,
    async balances(userId) {
      const b = await store.balances(userId);
      return { cash: centsToDollars(b.cash), bonus: centsToDollars(b.bonus), reserved: centsToDollars(b.reserved) };
    },
    effects: () => store.effects(),
    async seedUser(userId, balances) {
      await store.seedUser(userId, {
        cash: balances.cash === undefined ? undefined : dollarsToCents(balances.cash),
        bonus: balances.bonus === undefined ? undefined : dollarsToCents(balances.bonus),
      });
    },
    async seedBets(bets: SeededBet[]) {
      const rules: RunFlags = { ignoreBonus: false, ignorePartial: false, reapplyOnReplay: false, ignoreMismatch: false, racy: false };
      for (const bet of bets) {
        const common = { betId: bet.betId.toLowerCase(), userId: bet.userId.toLowerCase(), bonusFlag: bet.bonusFlag };
        const calls: TxRequest[] = [
          { op: 'reserve', transactionId: bet.reserveTransactionId.toLowerCase(), ...common, amount: dollarsToCents(bet.reserved) },
          { op: 'confirm', transactionId: bet.confirmTransactionId.toLowerCase(), ...common, amount: dollarsToCents(bet.confirmed) },
        ];
        for (const call of calls) {
          const answer = await store.execute(call, fingerprint(call), rules, now());
          if (answer.status !== 200) throw new Error(`seeding ${call.op} of bet ${call.betId}: ${JSON.stringify(answer.body)}`);
        }
      }
    },
    revokeTokens: () => auth.revokeAll(),
    load(options = {}) {
      const current = { inFlight: load.now, peak: load.peak };
      if (options.reset) load.peak = load.now;
      return current;
    },
  };
}
