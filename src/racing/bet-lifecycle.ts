// The states of a bet and the moves between them, in one table (docs/betting.md "Lifecycle").
// Every change of a bet's status is checked here first; an illegal one is refused with the reason
// and changes nothing. A settled bet may be settled again (an amended result re-settles it).
//
//   pending → accepted | partially_accepted | rejected            (placement)
//   accepted | partially_accepted → settled | refunded | cancelled | cashed_out
//   settled → settled (amendment) | refunded | cancelled
//   rejected, refunded, cancelled, cashed_out: final

export const BET_STATUSES = ['pending', 'accepted', 'partially_accepted', 'rejected', 'settled', 'refunded', 'cancelled', 'cashed_out'] as const;
export type BetStatus = (typeof BET_STATUSES)[number];

const NEXT: Record<BetStatus, readonly BetStatus[]> = {
  pending: ['accepted', 'partially_accepted', 'rejected'],
  accepted: ['settled', 'refunded', 'cancelled', 'cashed_out'],
  partially_accepted: ['settled', 'refunded', 'cancelled', 'cashed_out'],
  settled: ['settled', 'refunded', 'cancelled'],
  rejected: [],
  refunded: [],
  cancelled: [],
  cashed_out: [],
};

/** Taken bets: a stake is held by the wallet for them (what settlement and adjustments act on). */
export function isTaken(status: BetStatus): boolean {
  return status !== 'pending' && status !== 'rejected';
}

/** Not yet settled, refunded, cancelled or cashed out. */
export function isOpen(status: BetStatus): boolean {
  return status === 'accepted' || status === 'partially_accepted';
}

export function canMove(from: BetStatus, to: BetStatus): boolean {
  return NEXT[from].includes(to);
}

/** Why `from` cannot become `to`, or undefined when it can. */
export function moveProblem(from: BetStatus, to: BetStatus): string | undefined {
  if (canMove(from, to)) return undefined;
  return NEXT[from].length ? `a ${from} bet can become ${NEXT[from].join(', ')}, not ${to}` : `a ${from} bet is final and cannot become ${to}`;
}

export function transitions(): Array<{ from: BetStatus; to: BetStatus }> {
  return BET_STATUSES.flatMap((from) => NEXT[from].map((to) => ({ from, to })));
}
