// The upload's edges over HTTP and real PostgreSQL: a batch that dies half-way leaves nothing
// (spec 7.1 and the "a crash mid-batch leaves nothing of it"), input that would break the
// database is a 400 not a 500, expired tokens, and the settings and tenant defaults the rules use.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestApp, seedClient, type TestContext } from '../../../test/helpers/app.ts';
import { buildBet } from '../../../test/factories/bet-factory.ts';

let ctx: TestContext;
let client: Awaited<ReturnType<typeof seedClient>>;
before(async () => {
  // JBT (Jervis Bay Territory) added to the default list: the accepted states are a setting.
  ctx = await createTestApp({ WAGERLINE_UPLOAD_USER_STATES: 'NSW,VIC,QLD,SA,WA,TAS,NT,ACT,JBT', WAGERLINE_TOKEN_TTL_SECONDS: '600' });
  client = await seedClient(ctx, { agencies: ['TAB'], currency: 'NZD' });
});
after(() => ctx.close());

function post(payload: unknown, headers: Record<string, string> = client.auth) {
  return ctx.app.inject({ method: 'POST', url: '/public/uploadRaceV2', headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(payload) });
}

async function storedRows(meetingId: number): Promise<Array<{ bet_id: string; status: string; revision: number }>> {
  const { rows } = await ctx.db.pool.query('SELECT bet_id, status, revision FROM reported_bets WHERE meeting_id = $1 ORDER BY bet_id', [meetingId]);
  return rows;
}

async function revisions(meetingId: number): Promise<number> {
  const { rows } = await ctx.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM reported_bet_revisions WHERE meeting_id = $1', [meetingId]);
  return rows[0]!.n;
}

/**
 * Makes the database fail while it writes the row of bet `id`: rows are written in key order, so
 * the bets sorting before it are already written in the same statement when it fails. `kill`
 * terminates the session itself (a crashed connection), else the statement raises an error.
 */
async function sabotage(id: string, kill: boolean): Promise<() => Promise<void>> {
  const action = kill ? 'PERFORM pg_terminate_backend(pg_backend_pid());' : "RAISE EXCEPTION 'simulated failure';";
  await ctx.db.pool.query(`CREATE FUNCTION sabotage() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN IF NEW.bet_id = '${id}' THEN ${action} END IF; RETURN NEW; END $$`);
  await ctx.db.pool.query('CREATE TRIGGER sabotage BEFORE INSERT OR UPDATE ON reported_bets FOR EACH ROW EXECUTE FUNCTION sabotage()');
  return async () => {
    await ctx.db.pool.query('DROP TRIGGER sabotage ON reported_bets; DROP FUNCTION sabotage()');
  };
}

for (const kill of [false, true]) {
  test(`a batch that ${kill ? 'loses its connection' : 'fails'} half-way stores nothing, new or changed; the retry then succeeds`, async () => {
    const meeting = kill ? 5102 : 5101;
    const id = (name: string) => `${meeting}-${name}`; // bet keys do not include the meeting
    const first = await post({ meeting_id: meeting, race_number: 1, bets: [buildBet({ id: id('a-1'), status: 'Unresulted' })] });
    assert.equal(first.statusCode, 200, first.body);

    // a-1 changes (an update), a-2 is new, "boom" fails after both were written, c-1 is never reached.
    const batch = { meeting_id: meeting, race_number: 1, bets: ['a-1', 'a-2', 'boom', 'c-1'].map((name) => buildBet({ id: id(name), status: 'Paid' })) };
    const restore = await sabotage(id('boom'), kill);
    try {
      const res = await post(batch);
      // A lost connection is the database out of reach (503, try again); a failing statement is ours.
      assert.equal(res.statusCode, kill ? 503 : 500);
      assert.match(String(res.headers['content-type']), /application\/problem\+json/);
      assert.equal(res.json().code, kill ? 'service_unavailable' : 'internal_error');
      assert.doesNotMatch(res.body, /simulated|sabotage|terminat/i, 'no database detail leaks');
    } finally {
      await restore();
    }
    assert.deepEqual(await storedRows(meeting), [{ bet_id: id('a-1'), status: 'Unresulted', revision: 1 }]);
    assert.equal(await revisions(meeting), 0);

    // The operator (or the upload client) sends the same batch again: it is stored whole.
    const retry = await post(batch);
    assert.equal(retry.statusCode, 200, retry.body);
    assert.deepEqual([retry.json().created, retry.json().updated], [3, 1]);
    assert.equal(await revisions(meeting), 1);
  });
}

test('V2 ids with an unpaired surrogate are a 400 naming the bet, never a 500 (they would collide as UTF-8)', async () => {
  const res = await post({ meeting_id: 5103, race_number: 1, bets: [buildBet({ id: 'x\ud800' }), buildBet({ id: 'x\ud801' }), buildBet({ id: 'ok', user_name: 'Zo\udc00' })] });
  assert.equal(res.statusCode, 400);
  assert.deepEqual(res.json().errors.map((e: { field: string }) => e.field), ['bets/0/id', 'bets/1/id', 'bets/2/user_name']);
  assert.match(res.json().errors[0].message, /unpaired surrogate/);
  // A well-formed pair (an emoji) is ordinary text.
  const emoji = await post({ meeting_id: 5103, race_number: 1, bets: [buildBet({ id: 'bet-🏇' })] });
  assert.equal(emoji.statusCode, 200, emoji.body);
});

test('an expired token is a 401 problem+json, checked before the body', async () => {
  const { access_token } = await ctx.tokens.grant(client.client.client_id, client.client.client_secret);
  ctx.clock.advance(601_000);
  try {
    const res = await post({ meeting_id: 5104, race_number: 1, bets: [buildBet()] }, { authorization: `Bearer ${access_token}` });
    assert.equal(res.statusCode, 401);
    assert.match(String(res.headers['content-type']), /application\/problem\+json/);
    assert.equal(res.json().code, 'invalid_token');
    assert.match(res.json().detail, /expired/);
    assert.deepEqual(await storedRows(5104), []);
  } finally {
    ctx.clock.advance(-601_000);
  }
});

test('user_state takes the configured list (WAGERLINE_UPLOAD_USER_STATES), case-insensitively', async () => {
  const ok = await post({ meeting_id: 5105, race_number: 1, bets: [buildBet({ id: 's-1', user_state: 'jbt' })] });
  assert.equal(ok.statusCode, 200, ok.body);
  const { rows } = await ctx.db.pool.query("SELECT user_state FROM reported_bets WHERE bet_id = 's-1'");
  assert.equal(rows[0].user_state, 'JBT');
  const bad = await post({ meeting_id: 5105, race_number: 1, bets: [buildBet({ id: 's-2', user_state: 'Auckland' })] });
  assert.equal(bad.statusCode, 400);
  assert.match(bad.json().errors[0].message, /"Auckland" is not one of NSW, .*JBT/);
});

test('currency defaults to the tenant\'s; a given one is stored canonical', async () => {
  const res = await post({ meeting_id: 5106, race_number: 1, bets: [buildBet({ id: 'c-1', currency: undefined }), buildBet({ id: 'c-2', currency: 'aud' })] });
  assert.equal(res.statusCode, 200, res.body);
  const { rows } = await ctx.db.pool.query('SELECT bet_id, currency FROM reported_bets WHERE meeting_id = 5106 ORDER BY bet_id');
  assert.deepEqual(rows, [{ bet_id: 'c-1', currency: 'NZD' }, { bet_id: 'c-2', currency: 'AUD' }]);
});
