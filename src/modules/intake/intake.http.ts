// POST /public/uploadRace (V1), POST /public/uploadRaceV2 (V2) and GET /public/bets (spec 4.1, 9).
// The upload body is validated by the hand-written validator (validate-batch.ts, validate-bet.ts), not by Ajv: it must
// report every invalid bet as {index, id, field, message} and stay fast on 1,000-bet batches. The
// TypeBox schema below documents the body in the OpenAPI document only.
import type { FastifyInstance, onRequestAsyncHookHandler } from 'fastify';
import { Type, type TSchema } from 'typebox';
import type { Config } from '../../config.ts';
import { AppError } from '../../errors.ts';
import { problemResponses } from '../../http/problem.ts';
import type { IntakeService } from './intake.service.ts';
import { parseUploadBody, requireUtf8 } from './upload-body.ts';

const Money = Type.Number({ description: 'Finite number; kept exactly to 6 decimal places (a warning beyond 2)' });
const Instant = Type.String({ description: 'ISO 8601 date-time with UTC offset, e.g. 2024-05-01T13:45:00+10:00' });
const Int = (description: string) => Type.Union([Type.Integer(), Type.String({ pattern: '^[0-9]+$' })], { description });

// "Not given" is absent, null or (text) blank after trimming (docs/upload.md): optional fields take null.
const opt = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));
const IdText = (description: string) => Type.Union([Type.String({ maxLength: 100 }), Type.Integer()], { description });

function betSchema(id: ReturnType<typeof Type.Integer> | ReturnType<typeof Type.String>) {
  return Type.Object({
    source: opt(Type.String({ description: 'Agency code; optional when the client has one agency' })),
    id,
    leg: opt(Type.Integer({ minimum: 1, maximum: 99, description: 'Default 1; legs of a multi are 1..n' })),
    time: Instant,
    type: Type.String({ description: 'win, place, multi, exacta, trifecta, quaddie, firstfour, quinella, dailydouble' }),
    runner_number: opt(Type.Integer({ minimum: 1, maximum: 9999 })),
    exotics_selection: opt(Type.String({ description: 'e.g. "1,2/3", "4 / 6", "1,2,3(BOXED)"' })),
    user_id: IdText('The account in the source system, or cash, anon or anonymous with terminal_id'),
    user_name: opt(Type.String()),
    user_state: opt(Type.String({ description: 'NSW, VIC, QLD, SA, WA, TAS, NT, ACT (configurable)' })),
    terminal_id: opt(IdText('Required when user_id is cash, anon or anonymous; not allowed with any other user_id')),
    info_type: opt(Type.String()),
    medium: opt(Type.String()),
    resulted: opt(Type.Boolean()),
    status: Type.String({ description: 'Paid, Cancelled, FullRefund, Unresulted, Pending, PartialRefund (any case)' }),
    bonus: opt(Type.Boolean()),
    back_indicator: opt(Type.Boolean()),
    bet_back_id: opt(Type.Union([Type.Integer(), Type.String()])),
    bet_back_agency: opt(Type.String()),
    bet_back_amount: opt(Money),
    bet_back_revenue: opt(Money),
    bet_back_date: opt(Instant),
    amount: Money,
    price: opt(Money),
    payout: opt(Money),
    net_result: opt(Type.Number({ description: 'amount - payout; may be negative' })),
    currency: opt(Type.String({ description: 'ISO 4217; default the tenant currency' })),
    meeting_id: opt(Int("Not needed: when given, must be the request's (one meeting and one race per request)")),
    race_number: opt(Int("Not needed: when given, must be the request's")),
  });
}

const uploadBody = (version: 1 | 2) => Type.Object({
  meeting_id: Int('Meeting id of the reporting system'),
  race_number: Int('Race number within the meeting'),
  bets: Type.Array(betSchema(version === 1
    ? Type.Integer({ minimum: 0, description: 'V1: a JSON integer' })
    : Type.String({ minLength: 1, maxLength: 64, description: 'V2: a string' })), { minItems: 1, maxItems: 1000 }),
});

const UploadResponse = Type.Object({
  meeting_id: Type.Integer(),
  race_number: Type.Integer(),
  received: Type.Integer(),
  created: Type.Integer(),
  updated: Type.Integer(),
  unchanged: Type.Integer(),
  warnings: Type.Array(Type.Object({
    code: Type.String(), message: Type.String(), count: Type.Integer(), field: Type.String(),
  })),
});

const BetPage = Type.Object({
  bets: Type.Array(Type.Record(Type.String(), Type.Unknown()), { description: 'Stored bets in the upload field names, plus meeting_id, race_number, revision, late, received times' }),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as cursor for the next page; null on the last page' }),
});

const BetsQuery = Type.Object({
  meeting_id: Type.String({ pattern: '^[0-9]{1,16}$' }),
  race_number: Type.String({ pattern: '^[0-9]{1,2}$' }),
  // An agency code (tenants.service: [A-Z0-9_-]{1,32}), any case: other text could never match.
  source: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{1,32}$' })),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$', description: 'Bets per page, 1 to 1000 (default 100)' })),
  cursor: Type.Optional(Type.String({ maxLength: 500 })),
});

/** An upload's 409: the tenant's stored configuration, not the batch, stops it (docs/upload.md). */
const tenantMisconfigured = {
  ...problemResponses(409)[409],
  description: 'tenant_misconfigured: the tenant\'s stored time zone is unknown to the database, nothing is stored; `detail` names the fix (tenant set-zone)',
};

/** The upload routes accept UTF-8 application/json only (a form, text or Latin-1 body is a 415, not a 400). */
const requireJson: onRequestAsyncHookHandler = async (request) => {
  const type = request.headers['content-type'];
  const media = type?.split(';')[0]!.trim().toLowerCase();
  if (media !== 'application/json') {
    throw new AppError('unsupported_media_type', `Content-Type must be application/json${type ? `, got "${type}"` : ''}`);
  }
  requireUtf8(type!);
};

/** Installs parseUploadBody as the application/json parser of `scope` (an encapsulated plugin). */
function useUploadBodyParser(scope: FastifyInstance): void {
  // parseAs 'buffer': the bytes as received, so that no decoding happened before ours. The route's
  // bodyLimit still applies (Fastify enforces it while reading, before the parser runs).
  scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    let value: unknown;
    try {
      value = parseUploadBody(body as Buffer);
    } catch (error) {
      return done(error as Error, undefined);
    }
    done(null, value);
  });
}

function registerUpload(scope: FastifyInstance, version: 1 | 2, auth: onRequestAsyncHookHandler, service: IntakeService, config: Config): void {
  scope.post(version === 1 ? '/public/uploadRace' : '/public/uploadRaceV2', {
    bodyLimit: config.WAGERLINE_UPLOAD_BODY_LIMIT_BYTES,
    onRequest: [auth, requireJson],
    // Documented by the schema, validated by validate-batch.ts (see the top of this file).
    validatorCompiler: () => () => true,
    schema: {
      summary: version === 1 ? 'Upload the bets of one race (V1: integer bet ids)' : 'Upload the bets of one race (V2: string bet ids)',
      tags: ['upload'],
      security: [{ bearer: [] }],
      body: uploadBody(version),
      response: { 200: UploadResponse, ...problemResponses(400, 401, 403, 413, 415), 409: tenantMisconfigured },
    },
  }, async (request) => service.upload(request.principal!, version, request.body));
}

export function registerIntakeRoutes(app: FastifyInstance, service: IntakeService, config: Config): void {
  // Authenticate before the body is read: an anonymous 8 MB body is refused without parsing it.
  const auth = app.authenticate('upload') as unknown as onRequestAsyncHookHandler;
  // The upload routes in a scope of their own: its JSON parser (strict UTF-8, each key once) is
  // theirs alone; every other route keeps Fastify's.
  void app.register(async (scope) => {
    useUploadBodyParser(scope);
    for (const version of [1, 2] as const) registerUpload(scope, version, auth, service, config);
  });

  app.get('/public/bets', {
    onRequest: auth,
    schema: {
      summary: 'The caller\'s stored bets of one race, keyset-paginated',
      tags: ['upload'],
      security: [{ bearer: [] }],
      querystring: BetsQuery,
      response: { 200: BetPage, ...problemResponses(400, 401, 403) },
    },
  }, async (request) => {
    const query = request.query as { meeting_id: string; race_number: string; source?: string; limit?: string; cursor?: string };
    return service.listBets(request.principal!, query);
  });
}
