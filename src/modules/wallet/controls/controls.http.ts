// The wallet-call controls of a tenant on the admin API (scope `admin`, docs/admin-api.md): a
// bet's calls, the parked calls, retry and resolve — the same JSON as `wagerline wallet calls |
// failed | retry | resolve`, narrowed to the token's own tenant (another tenant's call or bet is
// not found: the service checks it).
import type { FastifyInstance, onRequestAsyncHookHandler } from 'fastify';
import { Type } from 'typebox';
import { documentedAnswer, okResponse, problemResponses } from '../../../http/problem.ts';
import * as answers from './controls.answers.ts';
import { tenantInReach } from '../../../http/tenant-reach.ts';
import type { WalletControls } from './controls.service.ts';

const UUID = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const TenantId = Type.String({ pattern: UUID, description: 'The tenant, a UUID: the token\'s own (any tenant with scope platform)' });
const TenantParams = Type.Object({ tenant_id: TenantId });
const BetParams = Type.Object({ tenant_id: TenantId, bet_id: Type.String({ pattern: UUID, description: 'A bet of that tenant, a UUID' }) });
const CallParams = Type.Object({ tenant_id: TenantId, call_id: Type.String({ pattern: UUID, description: 'The call\'s id (its transactionId, a UUID)' }) });

export function registerWalletControlRoutes(app: FastifyInstance, controls: Pick<WalletControls, 'callsOfBet' | 'failed' | 'retry' | 'resolve'>): void {
  // Authenticate before the body is read: an anonymous caller learns nothing about the body rules.
  const onRequest = app.authenticate('admin') as unknown as onRequestAsyncHookHandler;
  const security = [{ bearer: [] }];
  const errors = problemResponses(400, 401, 403, 404);
  // 409 wallet_call_not_failed: a call neither parked nor waiting after a failure.
  const changeErrors = problemResponses(400, 401, 403, 404, 409);
  const base = '/admin/tenants/:tenant_id';

  app.get(`${base}/bets/:bet_id/wallet-calls`, {
    onRequest, ...documentedAnswer,
    schema: {
      tags: ['admin'], security, params: BetParams, response: { ...okResponse(answers.CallsOfBet), ...errors },
      summary: 'Every wallet call of a bet, in order, with every attempt (as `wagerline wallet calls --bet`)',
    },
  }, async (request) => {
    const tenantId = tenantInReach(request);
    const { bet_id } = request.params as { bet_id: string };
    return controls.callsOfBet(bet_id.toLowerCase(), tenantId);
  });

  app.get(`${base}/wallet-calls/failed`, {
    onRequest, ...documentedAnswer,
    schema: {
      tags: ['admin'], security, params: TenantParams, response: { ...okResponse(answers.FailedCalls), ...errors },
      summary: 'The tenant\'s calls parked as failed (as `wagerline wallet failed --tenant`)',
    },
  }, async (request) => controls.failed(tenantInReach(request)));

  app.post(`${base}/wallet-calls/:call_id/retry`, {
    onRequest, ...documentedAnswer,
    schema: {
      tags: ['admin'], security, params: CallParams, response: { ...okResponse(answers.WalletCall), ...changeErrors },
      summary: 'Send a parked call, or one waiting after a failure, again now: same transactionId, fresh retry budget (as `wagerline wallet retry`)',
    },
  }, async (request) => {
    const tenantId = tenantInReach(request);
    const { call_id } = request.params as { call_id: string };
    return controls.retry(call_id.toLowerCase(), tenantId);
  });

  app.post(`${base}/wallet-calls/:call_id/resolve`, {
    onRequest, ...documentedAnswer,
    schema: {
      tags: ['admin'], security, params: CallParams, response: { ...okResponse(answers.WalletCall), ...changeErrors },
      summary: 'Close a parked call without sending it, settled by other means; unblocks its bet (as `wagerline wallet resolve`)',
      body: Type.Object({
        note: Type.String({ minLength: 1, maxLength: 500, description: 'Why, for the record' }),
        reserved: Type.Optional(Type.Boolean({ description: 'A reserve the wallet was found holding: its conditional refundBet is sent (default: skipped)' })),
      }, { additionalProperties: false }),
    },
  }, async (request) => {
    const tenantId = tenantInReach(request);
    const { call_id } = request.params as { call_id: string };
    const { note, reserved } = request.body as { note: string; reserved?: boolean };
    return controls.resolve(call_id.toLowerCase(), note, tenantId, { reserved: reserved === true });
  });
}
