// The server of `npm run bench:placement-floor`: plain Fastify and `pg`, no wagerline code, doing
// per request only what any placement design honouring the wallet protocol must do, so that its
// throughput is a ceiling for wagerline's on the same machine. One route per variant:
//   POST /bare           answered at once (the load generator and Fastify alone);
//   POST /http           reserve to the wallet, answer, confirm sent without waiting;
//   POST /http-1commit   as /http, after one autocommitted INSERT of the bet (stored before the reserve);
//   POST /http-2commits  as /http-1commit, plus one autocommitted UPDATE of the outcome after the reserve.
//   POST /graphql, /graphql-jwt   as /http-2commits, behind GraphQL and a user token (placement-floor-graphql.ts).
// GET /confirms counts the confirms sent and finished, so the bench can wait for them and charge
// their CPU to the run. Run as a process of its own (env DATABASE_URL, WALLET_URL, WALLET_CLIENT_ID,
// WALLET_CLIENT_SECRET, FLOOR_JWK: the users' tokens' public key, PG_POOL, WALLET_CONNECTIONS);
// prints {"url"} when listening.
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';
import { Pool as HttpPool } from 'undici';
import { registerGraphqlRoutes } from './placement-floor-graphql.ts';

const db = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.PG_POOL ?? 10), application_name: 'placement-floor' });
db.on('error', () => undefined);
await db.query(`CREATE TABLE IF NOT EXISTS floor_bets (bet_id uuid PRIMARY KEY, user_id uuid NOT NULL, stake numeric NOT NULL,
  status text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`);

// Keep-alive connections to the wallet, as many as the placements in flight can use at once.
const wallet = new HttpPool(process.env.WALLET_URL!, { connections: Number(process.env.WALLET_CONNECTIONS ?? 32), pipelining: 1 });

// client_credentials once at start: a real service caches its token too (spec 5.3).
const tokenRes = await wallet.request({ method: 'POST', path: '/auth/token', headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ grant_type: 'client_credentials', client_id: process.env.WALLET_CLIENT_ID, client_secret: process.env.WALLET_CLIENT_SECRET }) });
const { access_token: token } = (await tokenRes.body.json()) as { access_token: string };
const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };

interface Bet { betId: string; userId: string; stake: number }

async function call(op: 'reserve' | 'confirm', body: object): Promise<void> {
  const res = await wallet.request({ method: 'POST', path: `/${op}`, headers, body: JSON.stringify(body) });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`${op}: ${res.statusCode} ${text}`);
}

const reserve = (bet: Bet) => call('reserve', { transactionId: randomUUID(), betId: bet.betId, userId: bet.userId, bonusFlag: false,
  amount: bet.stake, token: 'floor', metadata: { userId: bet.userId, brandName: 'floor', brandUserId: bet.userId, data: '' } });

const confirms = { sent: 0, done: 0, failed: 0, error: '' };
function confirm(bet: Bet): void {
  confirms.sent++;
  call('confirm', { transactionId: randomUUID(), betId: bet.betId, userId: bet.userId, bonusFlag: false, amount: bet.stake,
    betMetadata: { id: bet.betId, amount: bet.stake, legs: [] } })
    .then(() => confirms.done++, (error: Error) => {
      confirms.failed++;
      confirms.error = error.message;
    });
}

// Named statements: parsed and planned once per connection, the least a statement can cost.
const insert = (bet: Bet) => db.query({ name: 'floor_insert', text: "INSERT INTO floor_bets (bet_id, user_id, stake, status) VALUES ($1, $2, $3, 'pending')",
  values: [bet.betId, bet.userId, bet.stake] });
const outcome = (bet: Bet) => db.query({ name: 'floor_outcome', text: "UPDATE floor_bets SET status = 'accepted' WHERE bet_id = $1", values: [bet.betId] });

const newBet = (body: unknown): Bet => {
  const b = body as { userId: string; stake: number };
  return { betId: randomUUID(), userId: b.userId, stake: b.stake };
};

const app = Fastify({ logger: false });
app.post('/bare', async () => ({ ok: true }));
app.post('/http', async (request) => {
  const bet = newBet(request.body);
  await reserve(bet);
  confirm(bet);
  return { ok: true, betId: bet.betId };
});
app.post('/http-1commit', async (request) => {
  const bet = newBet(request.body);
  await insert(bet);
  await reserve(bet);
  confirm(bet);
  return { ok: true, betId: bet.betId };
});
app.post('/http-2commits', async (request) => {
  const bet = newBet(request.body);
  await insert(bet);
  await reserve(bet);
  await outcome(bet);
  confirm(bet);
  return { ok: true, betId: bet.betId };
});
await registerGraphqlRoutes(app, async (userId, stake) => {
  const bet = { betId: randomUUID(), userId, stake };
  await insert(bet);
  await reserve(bet);
  await outcome(bet);
  confirm(bet);
  return bet.betId;
}, JSON.parse(process.env.FLOOR_JWK!));
app.get('/confirms', async () => confirms);

const address = await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
process.stdout.write(`${JSON.stringify({ url: address })}\n`);
process.once('SIGTERM', () => void app.close().then(() => wallet.close()).then(() => db.end()).then(() => process.exit(0)));
