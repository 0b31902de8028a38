// The catalogue's admin API (scope `catalog`, docs/catalogue.md): import meetings, read a race,
// price and scratch runners, move a race's status, record and read results, set place terms. The
// same writes as `wagerline catalog`, `race` and `place-terms`. The import body is checked by
// catalog-import.ts (every problem listed), so its schema here documents it for OpenAPI only.
import type { FastifyInstance, onRequestAsyncHookHandler } from 'fastify';
import { Type } from 'typebox';
import { AppError, problemSentence } from '../../errors.ts';
import { problemResponses } from '../../http/problem.ts';
import { positiveInteger } from '../../racing/values.ts';
import { MANUAL_STATUSES, RACE_STATUSES } from '../../racing/race-status.ts';
import { RACE_PRODUCTS } from '../../racing/catalogue-rules.ts';
import { TOTE_PRODUCTS } from '../../racing/results.ts';
import type { CatalogueService } from './catalogue.service.ts';
import type { ResultInput } from './results.ts';

const Decimal = (description: string) => Type.Union([Type.Number(), Type.String({ maxLength: 20 })], { description });
const Nullable = <T extends ReturnType<typeof Type.String> | ReturnType<typeof Type.Integer>>(t: T) => Type.Union([t, Type.Null()]);

// Path values are text (no type coercion anywhere: docs/errors.md); the route reads the numbers.
const Digits = (digits: number, description: string) => Type.String({ pattern: `^[0-9]{1,${digits}}$`, description });
const RaceParams = Type.Object({
  meeting_id: Digits(16, 'meeting id, a positive integer'),
  race_number: Digits(2, '1 to 99'),
});
const RunnerParams = Type.Object({ ...RaceParams.properties, runner: Digits(2, 'runner number, 1 to 99') });

// What the import reads (catalog-import.ts): ids as JSON integers or digit strings, prices and
// deductions as JSON numbers or decimal strings ("3.40"), each read exactly.
const IdIn = (max: number, description: string) => Type.Union([Type.Integer({ minimum: 1, maximum: max }), Type.String({ pattern: '^[0-9]+$' })], { description });
const DecimalIn = (description: string) => Type.Union([Type.Number(), Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$' })], { description });

const RunnerImport = Type.Object({
  number: Type.Integer({ minimum: 1, maximum: 99 }), name: Type.String({ maxLength: 100 }),
  scratched: Type.Optional(Type.Boolean()),
  win: Type.Optional(Type.Union([DecimalIn('Fixed-odds win price, 1.01 to 10000, at most 2 decimals'), Type.Null()], { description: 'null clears it' })),
  place: Type.Optional(Type.Union([DecimalIn('Fixed-odds place price, as win'), Type.Null()], { description: 'null clears it' })),
  win_deduction: Type.Optional(DecimalIn('Percent, 0 to 99.99, with scratched: true')),
  place_deduction: Type.Optional(DecimalIn('Percent, 0 to 99.99, with scratched: true')),
});
const MeetingImport = Type.Object({
  meeting_id: IdIn(Number.MAX_SAFE_INTEGER, 'The meeting, a positive integer'), date: Type.String({ description: 'YYYY-MM-DD' }), venue: Type.String(),
  jurisdiction: Type.String({ description: 'e.g. VIC' }), code: Type.String({ description: 'T, H or G' }),
  pools: Type.Optional(Type.Array(Type.Object({ product: Type.String({ description: 'quaddie or dailydouble' }), races: Type.Array(Type.Integer()) }))),
  races: Type.Optional(Type.Array(Type.Object({
    race_number: IdIn(99, '1 to 99'), start_time: Type.String({ description: 'ISO 8601 with offset' }),
    products: Type.Optional(Type.Array(Type.String({ description: RACE_PRODUCTS.join(', ') }))),
    runners: Type.Optional(Type.Array(RunnerImport)),
  }))),
});
const ImportBody = Type.Union([MeetingImport, Type.Array(MeetingImport), Type.Object({ meetings: Type.Array(MeetingImport) }, { additionalProperties: false })]);
const ImportResult = Type.Object({
  imported: Type.Integer({ description: 'Meetings' }), races: Type.Integer(), runners: Type.Integer(),
  price_changes: Type.Integer({ description: 'Price changes recorded in the history' }), pools: Type.Integer(),
});

const Runner = Type.Object({
  number: Type.Integer(), name: Type.String(), scratched: Type.Boolean(), scratched_at: Nullable(Type.String()),
  win: Nullable(Type.String({ description: 'Exact decimal, e.g. "3.50"' })), place: Nullable(Type.String()),
  win_deduction: Nullable(Type.String({ description: 'Percent, e.g. "15.00"' })), place_deduction: Nullable(Type.String()),
});
const Race = Type.Object({
  meeting_id: Type.Integer(), race_number: Type.Integer(), event_id: Type.String({ format: 'uuid' }),
  meeting_name: Type.String({ description: 'The venue' }), jurisdiction: Type.String(), code: Type.String(), date: Type.String(),
  start_time: Type.String({ description: 'ISO 8601, UTC' }), status: Type.String({ description: RACE_STATUSES.join(', ') }),
  products: Type.Array(Type.String()), runners: Type.Array(Runner),
  place_min_starters: Nullable(Type.Integer({ description: 'The fewest starters its place terms pay places for: with fewer, PLACE bets are refused (null: the terms pay none)' })),
});
const RunnerChange = Type.Object({ meeting_id: Type.Integer(), race_number: Type.Integer(), runner: Runner, changed: Type.Boolean() });
const StatusChange = Type.Object({
  meeting_id: Type.Integer(), race_number: Type.Integer(), event_id: Type.String(), status: Type.String(),
  previous_status: Type.String(), changed: Type.Boolean(),
});

// Results: the body is checked by racing/results.ts too; the schema refuses wrong types up front.
const RunnerNumber = Type.Integer({ minimum: 1, maximum: 99 });
const Placings = Type.Array(Type.Array(RunnerNumber, { minItems: 1, maxItems: 8 }), {
  minItems: 1, maxItems: 99, description: 'Places in order, each with the runners sharing it (a dead heat): [[4],[7,2],[1]]',
});
const DividendIn = Type.Union([
  Type.Number({ description: 'Per $1 unit, for every winning combination' }),
  Type.Array(Type.Object({ runners: Type.Array(RunnerNumber, { minItems: 1, maxItems: 8 }), dividend: Type.Number() }, { additionalProperties: false }),
    { minItems: 1, maxItems: 1000, description: 'Per winning combination (dead heats), runners in finishing order' }),
]);
const ResultBody = Type.Object({
  placings: Placings,
  dividends: Type.Optional(Type.Object(Object.fromEntries(TOTE_PRODUCTS.map((p) => [p, Type.Optional(DividendIn)])),
    { additionalProperties: false, description: 'Tote dividends per $1 unit, JSON numbers with at most 2 decimals: {"exacta": 30.0, "trifecta": 120.5}; quaddie and dailydouble only on the last race of a pool of theirs' })),
  interim: Type.Optional(Type.Boolean({ description: 'true: an interim result, shown and never settled (default false: final)' })),
  short_field: Type.Optional(Type.Boolean({ description: 'true: fewer runners finished than the race\'s products need (places paid, exotics), and the '
    + 'placings list every one of them (without it, such a final result is refused: a bet on an unlisted position would be settled as a loser)' })),
}, { additionalProperties: false });
const DividendsOut = Type.Record(Type.String(), Type.Array(Type.Object({ runners: Type.Optional(Type.Array(Type.Integer())), dividend: Type.String() })),
  { description: 'Per product: the dividends as exact decimal text' });
const Recorded = Type.Object({
  meeting_id: Type.Integer(), race_number: Type.Integer(), status: Type.String({ description: 'interim or final' }),
  previous_status: Type.String(), version: Type.Integer({ description: 'Every result recorded is a new version' }),
  amended: Type.Boolean({ description: 'A final result replacing an earlier final one' }),
  changed: Type.Boolean({ description: 'false: the latest result is this one already (a repeated request): nothing recorded or settled' }),
  placings: Type.Array(Type.Array(Type.Integer())),
  dividends: DividendsOut,
  settlement: Type.Null({ description: 'Always null: the race\'s bets are settled in the background (race show, bet show)' }),
});
const ResultView = Type.Object({
  meeting_id: Type.Integer(), race_number: Type.Integer(), version: Type.Integer(), final: Type.Boolean(),
  placings: Type.Array(Type.Array(Type.Integer())), dividends: DividendsOut, recorded_at: Type.String({ description: 'ISO 8601, UTC' }),
});
const Terms = Type.Array(Type.Object({
  min_starters: Type.Integer({ minimum: 1, maximum: 99, description: 'From this many starters…' }),
  places: Type.Integer({ minimum: 1, maximum: 99, description: '…this many places are paid' }),
}, { additionalProperties: false }), { minItems: 1, maxItems: 99 });
const PlaceTerms = Type.Object({ jurisdiction: Type.String(), terms: Terms, updated_at: Type.String() });
const JurisdictionParams = Type.Object({
  jurisdiction: Type.String({ pattern: '^(\\*|[A-Za-z0-9_-]{1,32})$', description: 'A code such as VIC, or * for every jurisdiction without terms of its own' }),
});

type RaceKey = { meeting_id: number; race_number: number };
type RunnerKey = RaceKey & { runner: number };

/** The path's numbers, each in its range, or a 400 naming the parameter. */
function keyOf(params: unknown): RunnerKey {
  const p = params as Record<string, string>;
  const number = (name: string, max: number) => {
    const value = p[name] === undefined ? 1 : positiveInteger(p[name], max);
    if (value === undefined) {
      const message = max === 99 ? 'must be an integer from 1 to 99' : 'must be a positive integer';
      throw new AppError('validation_failed', problemSentence(`params/${name}`, message), { extensions: { errors: [{ field: `params/${name}`, message }] } });
    }
    return value;
  };
  return { meeting_id: number('meeting_id', Number.MAX_SAFE_INTEGER), race_number: number('race_number', 99), runner: number('runner', 99) };
}

export interface CatalogueRouteOptions {
  /** Settles the races queued by a final result, in the background (serve: the settlement service). */
  settle?: () => Promise<unknown>;
}

export function registerCatalogueRoutes(app: FastifyInstance, service: CatalogueService, options: CatalogueRouteOptions = {}): void {
  // Authenticate before the body is read: an anonymous caller learns nothing about the body rules.
  const onRequest = app.authenticate('catalog') as unknown as onRequestAsyncHookHandler;
  const base = { tags: ['catalogue'], security: [{ bearer: [] }] };
  const race = '/catalog/meetings/:meeting_id/races/:race_number';

  app.post('/catalog/meetings', {
    onRequest,
    validatorCompiler: () => () => true,
    schema: {
      ...base, summary: 'Import meetings with races, runners, prices and pools (checked whole; nothing written on error; 409 when it changes a price of a race past suspended, scratches in a resulted race, or ends a pool where a replaced pool with bets still to settle ends; a file repeating a race as it stands passes)',
      body: ImportBody, response: { 200: ImportResult, ...problemResponses(400, 401, 403, 409, 413, 415) },
    },
  }, async (request) => service.importCatalog(request.body));

  app.get(race, {
    onRequest,
    schema: { ...base, summary: 'A race with its runners, prices and status', params: RaceParams, response: { 200: Race, ...problemResponses(400, 401, 403, 404) } },
  }, async (request) => {
    const { meeting_id, race_number } = keyOf(request.params);
    return service.requireRace(meeting_id, race_number);
  });

  app.put(`${race}/runners/:runner/price`, {
    onRequest,
    schema: {
      ...base, summary: 'Set a runner\'s fixed-odds win and/or place price (kept in the price history); 409 once the race is past suspended', params: RunnerParams,
      body: Type.Object({ win: Type.Optional(Decimal('1.01 to 10000, at most 2 decimals')), place: Type.Optional(Decimal('1.01 to 10000, at most 2 decimals')) },
        { additionalProperties: false, minProperties: 1 }),
      response: { 200: RunnerChange, ...problemResponses(400, 401, 403, 404, 409) },
    },
  }, async (request) => {
    const { meeting_id, race_number, runner } = keyOf(request.params);
    return service.setPrice(meeting_id, race_number, runner, request.body as { win?: unknown; place?: unknown });
  });

  app.post(`${race}/runners/:runner/scratch`, {
    onRequest,
    // Deductions are optional, so is the body: a bare POST is a scratching without deductions.
    preValidation: async (request) => {
      request.body ??= {};
    },
    schema: {
      ...base, summary: 'Scratch a runner, with optional late-scratching deductions in percent', params: RunnerParams,
      body: Type.Object({ win_deduction: Type.Optional(Decimal('Percent, 0 to 99.99')), place_deduction: Type.Optional(Decimal('Percent, 0 to 99.99')) },
        { additionalProperties: false, description: 'Optional: a POST without a body scratches without deductions' }),
      response: { 200: RunnerChange, ...problemResponses(400, 401, 403, 404, 409) },
    },
  }, async (request) => {
    const { meeting_id, race_number, runner } = keyOf(request.params);
    return service.scratch(meeting_id, race_number, runner, (request.body ?? {}) as { win_deduction?: unknown; place_deduction?: unknown });
  });

  app.put(`${race}/status`, {
    onRequest,
    schema: {
      ...base, summary: 'Move a race along the status machine (open, suspended, closed, abandoned)', params: RaceParams,
      body: Type.Object({ status: Type.String({ maxLength: 20, description: MANUAL_STATUSES.join(', ') }) }, { additionalProperties: false }),
      response: { 200: StatusChange, ...problemResponses(400, 401, 403, 404, 409) },
    },
  }, async (request) => {
    const { meeting_id, race_number } = keyOf(request.params);
    return service.setStatus(meeting_id, race_number, (request.body as { status: string }).status);
  });

  app.post(`${race}/result`, {
    onRequest,
    schema: {
      ...base, summary: 'Record a race\'s result: final (202, its bets settled in the background; on a final race, an amendment) or interim (200); the latest result again changes nothing (200, changed: false)',
      params: RaceParams, body: ResultBody,
      response: { 200: Recorded, 202: Recorded, ...problemResponses(400, 401, 403, 404, 409) },
    },
  }, async (request, reply) => {
    const { meeting_id, race_number } = keyOf(request.params);
    const recorded = await service.recordResult(meeting_id, race_number, request.body as ResultInput);
    if (recorded.status !== 'final' || !recorded.changed) return { ...recorded, settlement: null };
    // The race is queued in the result's transaction; settle it now without holding the answer.
    // Should this fail, serve's settlement worker takes the race up at its next poll.
    options.settle?.().catch((error: unknown) => request.log.error({ err: error }, 'settling after a result failed; the settlement worker retries it'));
    return reply.status(202).send({ ...recorded, settlement: null });
  });

  app.get(`${race}/result`, {
    onRequest,
    schema: { ...base, summary: 'The race\'s latest result, interim or final', params: RaceParams, response: { 200: ResultView, ...problemResponses(400, 401, 403, 404) } },
  }, async (request) => {
    const { meeting_id, race_number } = keyOf(request.params);
    await service.requireRace(meeting_id, race_number);
    const result = await service.result(meeting_id, race_number);
    if (!result) throw new AppError('not_found', `race ${race_number} of meeting ${meeting_id} has no result yet`);
    return { meeting_id, race_number, ...result };
  });

  app.put('/catalog/place-terms/:jurisdiction', {
    onRequest,
    schema: {
      ...base, summary: 'Set the places paid by starters in a jurisdiction (* for any without its own); settlement reads them',
      params: JurisdictionParams, body: Type.Object({ terms: Terms }, { additionalProperties: false }),
      response: { 200: PlaceTerms, ...problemResponses(400, 401, 403) },
    },
  }, async (request) => service.setPlaceTerms((request.params as { jurisdiction: string }).jurisdiction, (request.body as { terms: unknown }).terms));

  app.get('/catalog/place-terms', {
    onRequest,
    schema: { ...base, summary: 'Every jurisdiction\'s place terms, * first', response: { 200: Type.Object({ place_terms: Type.Array(PlaceTerms) }), ...problemResponses(401, 403) } },
  }, async () => service.placeTerms());
}
