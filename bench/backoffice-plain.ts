// The comparison route of `npm run bench:backoffice`, in the bench only: a plain Fastify JSON route
// that runs the same reads (the same SQL: the page with legs and history, the legs' races and
// meetings, wallet calls with attempts) as getBets with every field, without GraphQL and without
// the back-office client's identification. Run as a process of its own; prints {"url"} when
// listening.
import Fastify from 'fastify';
import { createPool } from '../src/db/pool.ts';
import { benchServices } from './services.ts';

const url = process.env.DATABASE_URL!;
const pool = createPool(url);
const { backofficeReads: reads } = benchServices(pool, url);
const app = Fastify({ logger: false });
app.post('/bets', async (request) => {
  const body = request.body as { tenant_ids: string[]; bet_ids: string[] };
  const page = await reads.bets({ tenantIds: body.tenant_ids, betIds: body.bet_ids, limit: body.bet_ids.length }, { legs: true, walletCalls: true, history: true });
  return {
    bets: page.bets.map((bet) => ({ id: bet.id, created_at: bet.created_at, metadata: bet.metadata, legs: bet.legs, wallet_calls: bet.wallet_calls, history: bet.history })),
    pagination: page.pagination,
  };
});
const address = await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
process.stdout.write(`${JSON.stringify({ url: address })}\n`);
process.once('SIGTERM', () => void app.close().then(() => pool.end()).then(() => process.exit(0)));
