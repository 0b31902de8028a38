// The race status machine. A race opens for betting, may be suspended and reopened, closes at the
// jump, and is then resulted (interim, then final) — or abandoned before its result is final:
//
//   open → suspended ⇄ open → closed → (interim →) final
//   open | suspended | closed | interim → abandoned
//
// interim → abandoned is the stewards declaring a no-race before the result is final: nothing is
// settled on an interim result, so every bet on the race is simply refunded.
//
// interim and final are set by results (`race result`), never by an operator's status command; a
// final race takes an amended final result (a protest upheld) and stays final;
// `race status` and the admin API take only the MANUAL_STATUSES. Pure: the service enforces it.

export const RACE_STATUSES = ['open', 'suspended', 'closed', 'interim', 'final', 'abandoned'] as const;
export type RaceStatus = (typeof RACE_STATUSES)[number];

/** What an operator may ask for (CLI `race status`, PUT .../status). */
export const MANUAL_STATUSES = ['open', 'suspended', 'closed', 'abandoned'] as const;
export type ManualStatus = (typeof MANUAL_STATUSES)[number];

// suspended → closed is allowed: a market is usually suspended moments before the jump, and the
// race must still be closable from there without reopening it to bets first.
const NEXT: Record<RaceStatus, readonly RaceStatus[]> = {
  open: ['suspended', 'closed', 'abandoned'],
  suspended: ['open', 'closed', 'abandoned'],
  closed: ['interim', 'final', 'abandoned'],
  interim: ['final', 'abandoned'],
  final: [],
  abandoned: [],
};

export function isRaceStatus(value: unknown): value is RaceStatus {
  return typeof value === 'string' && (RACE_STATUSES as readonly string[]).includes(value);
}

export function isManualStatus(value: unknown): value is ManualStatus {
  return typeof value === 'string' && (MANUAL_STATUSES as readonly string[]).includes(value);
}

/** The statuses a race may move to from `from`. */
export function nextStatuses(from: RaceStatus): readonly RaceStatus[] {
  return NEXT[from];
}

export type Move = { ok: true; changed: boolean } | { ok: false; reason: string };

/**
 * Whether a race in `from` may move to `to`. Asking for the status the race already has is
 * accepted and changes nothing, so a retried command is harmless.
 */
export function checkMove(from: RaceStatus, to: RaceStatus): Move {
  if (from === to) return { ok: true, changed: false };
  if (NEXT[from].includes(to)) return { ok: true, changed: true };
  const allowed = NEXT[from].length ? `it can move to ${NEXT[from].join(', ')}` : 'no move is left';
  return { ok: false, reason: `race is ${from} and cannot become ${to} (${allowed})` };
}

/** Bets may be placed only on an open race. */
export function acceptsBets(status: RaceStatus): boolean {
  return status === 'open';
}

/** Fixed-odds prices change while the market is up: open or suspended. */
export function acceptsPrices(status: RaceStatus): boolean {
  return status === 'open' || status === 'suspended';
}

/** Scratchings are taken until the race is resulted (late scratchings come at the barrier). */
export function acceptsScratchings(status: RaceStatus): boolean {
  return status === 'open' || status === 'suspended' || status === 'closed';
}
