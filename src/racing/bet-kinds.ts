// The kinds of bet a user can place, and how each one reads its selections. A selection is a list
// of runner numbers per position (exotics) or per leg (multi-race bets): `[[4]]` is a win on 4,
// `[[1], [2, 3]]` an exacta with 1 to win and 2 or 3 second, `[[1, 2, 3, 4]]` boxed is any order.

export const BET_KINDS = ['WIN', 'PLACE', 'EXACTA', 'QUINELLA', 'TRIFECTA', 'FIRST_FOUR', 'MULTI', 'QUADDIE', 'DAILY_DOUBLE'] as const;
export type BetKind = (typeof BET_KINDS)[number];

export interface KindRule {
  /** The upload interface's name of the type (reports show placed bets with it). */
  uploadType: 'win' | 'place' | 'exacta' | 'quinella' | 'trifecta' | 'firstfour' | 'multi' | 'quaddie' | 'dailydouble';
  /** Our betTypeId in the wallet's betMetadata (docs/betting.md). */
  betTypeId: number;
  /** Fixed odds (a price per leg) or tote (a share of a pool, by percentage). */
  pricing: 'fixed' | 'tote';
  /** Legs: one race, or one per race of a multi-race bet (exactly `legs`, or at least 2 for a multi). */
  legs: number | 'many';
  /** Ordered positions an exotic fills (exacta 2, trifecta 3, first four 4); 1 for the others. */
  positions: number;
  /** Whether the order of the positions matters (quinella: any order). */
  ordered: boolean;
  /** The race product that must be offered for each leg. */
  product: string;
}

export const KIND_RULES: Record<BetKind, KindRule> = {
  WIN: { uploadType: 'win', betTypeId: 1, pricing: 'fixed', legs: 1, positions: 1, ordered: true, product: 'win' },
  PLACE: { uploadType: 'place', betTypeId: 2, pricing: 'fixed', legs: 1, positions: 1, ordered: true, product: 'place' },
  EXACTA: { uploadType: 'exacta', betTypeId: 3, pricing: 'tote', legs: 1, positions: 2, ordered: true, product: 'exacta' },
  QUINELLA: { uploadType: 'quinella', betTypeId: 4, pricing: 'tote', legs: 1, positions: 2, ordered: false, product: 'quinella' },
  TRIFECTA: { uploadType: 'trifecta', betTypeId: 5, pricing: 'tote', legs: 1, positions: 3, ordered: true, product: 'trifecta' },
  FIRST_FOUR: { uploadType: 'firstfour', betTypeId: 6, pricing: 'tote', legs: 1, positions: 4, ordered: true, product: 'firstfour' },
  MULTI: { uploadType: 'multi', betTypeId: 7, pricing: 'fixed', legs: 'many', positions: 1, ordered: true, product: 'win' },
  QUADDIE: { uploadType: 'quaddie', betTypeId: 8, pricing: 'tote', legs: 4, positions: 1, ordered: true, product: 'quaddie' },
  DAILY_DOUBLE: { uploadType: 'dailydouble', betTypeId: 9, pricing: 'tote', legs: 2, positions: 1, ordered: true, product: 'dailydouble' },
};

/** The largest multi we take: more legs only multiply the odds past any payout limit. */
export const MAX_MULTI_LEGS = 10;
/** Runners listed in one position (or leg) at most. */
export const MAX_RUNNERS_PER_POSITION = 40;

/**
 * The reporting source of bets placed through wagerline: their rows in the reporting store carry
 * it where an uploaded bet carries its agency code, so no client may hold an agency of that name.
 */
export const PLACED_SOURCE = 'WAGERLINE';
