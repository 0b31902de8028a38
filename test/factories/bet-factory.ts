// Realistic upload payloads for tests and benchmarks: buildBet() for one bet, buildBatch() for a
// race's batch. Deterministic for a given seed so a benchmark's rows are the same on every run.

export type UploadBet = Record<string, unknown>;

export function buildBet(overrides: UploadBet = {}): UploadBet {
  return {
    source: 'TAB',
    id: 'B-1',
    leg: 1,
    time: '2024-05-01T13:45:12+10:00',
    type: 'win',
    runner_number: 4,
    user_id: 'u-1001',
    user_name: 'J. Citizen',
    user_state: 'NSW',
    info_type: 'fixed',
    medium: 'internet',
    resulted: true,
    status: 'Paid',
    bonus: false,
    back_indicator: false,
    amount: 10,
    price: 3.5,
    payout: 35,
    net_result: -25,
    currency: 'AUD',
    ...overrides,
  };
}

/** A small deterministic PRNG (mulberry32). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STATES = ['NSW', 'VIC', 'QLD', 'SA', 'WA', 'TAS', 'NT', 'ACT'];
const MEDIA = ['internet', 'native app', 'phone', 'retail'];

/** One bet of a realistic mix: win/place/multi with prices, exotics with selections, flexi stakes. */
export function randomBet(rand: () => number, id: string | number, time: string): UploadBet {
  const r = rand();
  const amount = r < 0.1 ? Math.round(rand() * 1e6) / 1e6 + 1 : Math.round(1 + rand() * 200);
  const paid = rand() < 0.3;
  const bet: UploadBet = {
    source: 'TAB', id, time, user_id: `u-${Math.floor(rand() * 50000)}`, user_name: 'Customer Name',
    user_state: STATES[Math.floor(rand() * STATES.length)], info_type: 'fixed', medium: MEDIA[Math.floor(rand() * MEDIA.length)],
    resulted: true, status: 'Paid', bonus: rand() < 0.05, back_indicator: false, amount, currency: 'AUD',
  };
  if (r < 0.6) {
    const price = Math.round((1.2 + rand() * 20) * 100) / 100;
    Object.assign(bet, { type: rand() < 0.7 ? 'win' : 'place', runner_number: 1 + Math.floor(rand() * 14), price });
  } else if (r < 0.75) {
    const price = Math.round((1.2 + rand() * 5) * 100) / 100;
    Object.assign(bet, { type: 'multi', leg: 1 + Math.floor(rand() * 3), runner_number: 1 + Math.floor(rand() * 14), price });
  } else if (r < 0.9) {
    Object.assign(bet, { type: 'trifecta', exotics_selection: rand() < 0.5 ? '1, 2/3, 4/5, 6' : '1,2,3,4(BOXED)' });
  } else {
    Object.assign(bet, { type: 'quaddie', exotics_selection: '1,2/3/4,5,6/7' });
  }
  const payout = paid ? Math.round(Number(bet.amount) * 3 * 100) / 100 : 0;
  bet.payout = payout;
  bet.net_result = Math.round((Number(bet.amount) - payout) * 1e6) / 1e6;
  return bet;
}

export function buildBatch(opts: { meetingId: number | string; raceNumber: number; count: number; seed?: number; idPrefix?: string; time?: string }) {
  const rand = prng(opts.seed ?? 1);
  const bets = Array.from({ length: opts.count }, (_, i) => randomBet(rand, `${opts.idPrefix ?? 'B'}-${i}`, opts.time ?? '2024-05-01T13:45:12.123+10:00'));
  return { meeting_id: opts.meetingId, race_number: opts.raceNumber, bets };
}
