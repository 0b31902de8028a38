// GET /reports/turnover and GET /reports/late-uploads (docs/reports.md). A token with scope
// upload (an operator: its own tenant) or report (an authority: its jurisdictions; a track
// owner: its venues — of every tenant).
// JSON {rows: [...]} by default; CSV when the Accept header prefers text/csv.
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler, preHandlerAsyncHookHandler } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../errors.ts';
import { problemResponses } from '../../http/problem.ts';
import { toCsv } from './reports.csv.ts';
import { GROUP_KEYS } from './reports.queries.ts';
import type { ReportResult, ReportsService } from './reports.service.ts';

const Day = (what: string) => Type.String({ maxLength: 40, description: `${what} racing day, YYYY-MM-DD, included` });

const TurnoverQuery = Type.Object({
  from: Day('First'),
  to: Day('Last'),
  meeting_id: Type.Optional(Type.String({ maxLength: 40, description: 'Only this meeting' })),
  group_by: Type.Optional(Type.Union([Type.String({ maxLength: 300 }), Type.Array(Type.String({ maxLength: 300 }), { maxItems: 20 })], {
    description: `Comma-separated group keys, any of ${Object.keys(GROUP_KEYS).join(', ')}`,
  })),
});
const LateQuery = Type.Object({
  from: Day('First'),
  to: Day('Last'),
  meeting_id: Type.Optional(Type.String({ maxLength: 40, description: 'Only this meeting' })),
});

const Money = Type.String({ description: 'Decimal string with 2 places, e.g. "1234.50"' });
const TurnoverRow = Type.Object({
  currency: Type.String({ description: 'ISO 4217: every row is of one currency; amounts of two are never added' }),
  bets: Type.Integer({ description: 'Bets in the group (a multi-leg bet once), every status' }),
  void_bets: Type.Integer({ description: 'Of those, Cancelled or FullRefund (they count zero)' }),
  turnover: Money, bonus_turnover: Money, bet_back_turnover: Money, payout: Money,
  net_result: { ...Money, description: 'turnover - payout' },
}, { additionalProperties: true, description: 'The group keys asked for, then currency (unless asked for), then the figures' });
const LateRow = Type.Object({
  date: Type.String(), tenant_id: Type.String(), tenant_name: Type.String(), client_id: Type.String(),
  meeting_id: Type.Integer(), race_number: Type.Integer(), bets: Type.Integer(), late_bets: Type.Integer(),
  late_changes: Type.Integer(), deadline_at: Type.String(), first_late_at: Type.String(), last_late_at: Type.String(),
  max_delay_seconds: Type.Integer(),
});

/** q-value of each media type in an Accept header (RFC 9110 §12.5.1), the highest per type. */
function wantsCsv(accept: string | undefined): boolean {
  if (!accept) return false;
  const weight = { csv: 0, json: 0 };
  for (const part of accept.toLowerCase().split(',')) {
    const [type, ...params] = part.split(';').map((s) => s.trim());
    const q = params.find((p) => p.startsWith('q='));
    const value = q ? Number(q.slice(2)) || 0 : 1;
    if (type === 'text/csv') weight.csv = Math.max(weight.csv, value);
    if (type === 'application/json') weight.json = Math.max(weight.json, value);
  }
  return weight.csv > 0 && weight.csv > weight.json;
}

function send(request: FastifyRequest, reply: FastifyReply, name: string, result: ReportResult<Record<string, unknown>>) {
  // Serialized here, not by the response schema (which documents the rows): a schema serializer
  // would move the group keys after the figures.
  if (!wantsCsv(request.headers.accept)) return reply.type('application/json; charset=utf-8').send(JSON.stringify({ rows: result.rows }));
  const { from, to } = request.query as { from: string; to: string };
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${name}_${from}_${to}.csv"`)
    .send(toCsv(result.columns, result.rows));
}

/** Either scope: report is tried first (an authority's view), then upload. Runs on request, before
 * the query is validated: an anonymous caller learns nothing about parameters. */
function eitherScope(app: FastifyInstance): onRequestAsyncHookHandler {
  const asReport: preHandlerAsyncHookHandler = app.authenticate('report');
  const asUpload: preHandlerAsyncHookHandler = app.authenticate('upload');
  return async function (this: FastifyInstance, request, reply) {
    try {
      await asReport.call(this, request, reply);
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'insufficient_scope')) throw error;
      try {
        await asUpload.call(this, request, reply);
      } catch (second) {
        if (!(second instanceof AppError && second.code === 'insufficient_scope')) throw second;
        throw new AppError('insufficient_scope', 'reports need a token with scope "upload" (own tenant) or "report" (an authority, a track owner, or own tenant)', {
          headers: { 'www-authenticate': 'Bearer realm="wagerline", error="insufficient_scope", scope="upload report"' },
        });
      }
    }
  };
}

export function registerReportRoutes(app: FastifyInstance, service: ReportsService): void {
  const auth = eitherScope(app);
  const produces = ['application/json', 'text/csv'];
  app.get('/reports/turnover', {
    onRequest: auth,
    schema: {
      summary: 'Turnover, payout and net result of reported bets, grouped as asked',
      tags: ['reports'], security: [{ bearer: [] }], produces, querystring: TurnoverQuery,
      response: { 200: Type.Object({ rows: Type.Array(TurnoverRow) }), ...problemResponses(400, 401, 403) },
    },
  }, async (request, reply) => send(request, reply, 'turnover', await service.turnover(request.principal!, request.query as never)));

  app.get('/reports/late-uploads', {
    onRequest: auth,
    schema: {
      summary: 'Compliance: bets received after the upload deadline (docs/upload.md, Deadline), per client, racing day and race',
      tags: ['reports'], security: [{ bearer: [] }], produces, querystring: LateQuery,
      response: { 200: Type.Object({ rows: Type.Array(LateRow) }), ...problemResponses(400, 401, 403) },
    },
  }, async (request, reply) => send(request, reply, 'late-uploads', await service.lateUploads(request.principal!, request.query as never)));
}
