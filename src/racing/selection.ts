// Bet types and the exotics_selection grammar (spec 2.2): runners (positive integers) separated
// by ",", positions or legs separated by "/", an optional "(BOXED)" suffix; whitespace around
// separators is allowed because real payloads send "1, 2, 3" and "4 / 6".

import { echo } from '../errors.ts';

export const BET_TYPES = ['win', 'place', 'multi', 'exacta', 'trifecta', 'quaddie', 'firstfour', 'quinella', 'dailydouble'] as const;
export type BetType = (typeof BET_TYPES)[number];

export const STATUSES = ['Paid', 'Cancelled', 'FullRefund', 'Unresulted', 'Pending', 'PartialRefund'] as const;
export type Status = (typeof STATUSES)[number];

/** Case-insensitive lookups to the canonical spelling. */
export const TYPE_BY_LOWER: ReadonlyMap<string, BetType> = new Map(BET_TYPES.map((t) => [t, t]));
export const STATUS_BY_LOWER: ReadonlyMap<string, Status> = new Map(STATUSES.map((s) => [s.toLowerCase(), s]));

interface TypeRule {
  /** runner: a single runner_number; selection: exotics_selection. */
  takes: 'runner' | 'selection';
  /** Positions (or legs) an unboxed selection has. */
  groups?: number;
  /** Whether the groups are legs of different races (quaddie, dailydouble) rather than positions. */
  legs?: boolean;
  /** Whether (BOXED) is allowed; a boxed selection is one group of at least `groups` runners. */
  boxable?: boolean;
  /** Highest `leg` value: 1 for single-race bets; a multi has any number of legs. */
  maxLeg: number;
}

// Per-type usage is "not shown" in the spec (2.2); these are the rules docs/upload.md documents.
export const TYPE_RULES: Record<BetType, TypeRule> = {
  win: { takes: 'runner', maxLeg: 1 },
  place: { takes: 'runner', maxLeg: 1 },
  multi: { takes: 'runner', maxLeg: 99 },
  exacta: { takes: 'selection', groups: 2, boxable: true, maxLeg: 1 },
  quinella: { takes: 'selection', groups: 2, boxable: true, maxLeg: 1 },
  trifecta: { takes: 'selection', groups: 3, boxable: true, maxLeg: 1 },
  firstfour: { takes: 'selection', groups: 4, boxable: true, maxLeg: 1 },
  dailydouble: { takes: 'selection', groups: 2, legs: true, maxLeg: 2 },
  quaddie: { takes: 'selection', groups: 4, legs: true, maxLeg: 4 },
};

export const MAX_RUNNER = 9999;

export interface Selection {
  groups: number[][];
  boxed: boolean;
  /** Canonical text: no whitespace, "(BOXED)" upper case. */
  canonical: string;
}

const BOXED = /\(\s*boxed\s*\)\s*$/i;
const RUNNER = /^[1-9]\d{0,3}$/;

/** Parses the grammar alone; returns the selection or a message saying what is wrong. */
export function parseSelection(text: string): Selection | string {
  const boxedMatch = BOXED.exec(text);
  const body = (boxedMatch ? text.slice(0, boxedMatch.index) : text).trim();
  if (!body) return 'has no runners';
  const groups: number[][] = [];
  for (const part of body.split('/')) {
    const group: number[] = [];
    const seen = new Set<number>();
    for (const raw of part.split(',')) {
      const runner = raw.trim();
      if (!runner) return `has an empty runner in position ${groups.length + 1} (${echo(text)})`;
      if (!RUNNER.test(runner)) return `has ${echo(runner)} where a runner number (1 to ${MAX_RUNNER}) belongs`;
      const n = Number(runner);
      if (seen.has(n)) return `names runner ${n} twice in position ${groups.length + 1}`;
      seen.add(n);
      group.push(n);
    }
    groups.push(group);
  }
  return { groups, boxed: !!boxedMatch, canonical: selectionText(groups, !!boxedMatch) };
}

/**
 * The canonical text of a selection: runners joined by ",", positions or legs by "/", "(BOXED)"
 * last. Uploads store it, and bets placed through wagerline are reported with it, so the two agree.
 */
export function selectionText(groups: readonly (readonly number[])[], boxed: boolean): string {
  return groups.map((g) => g.join(',')).join('/') + (boxed ? '(BOXED)' : '');
}

/** Checks a parsed selection against its bet type; returns a message or undefined. */
export function checkSelection(type: BetType, sel: Selection): string | undefined {
  const rule = TYPE_RULES[type];
  const want = rule.groups ?? 1;
  const unit = rule.legs ? 'legs' : 'positions';
  if (sel.boxed) {
    if (!rule.boxable) return `(BOXED) is only allowed on exacta, quinella, trifecta and firstfour, not ${type}`;
    if (sel.groups.length !== 1) return 'a boxed selection is one group of runners, without "/"';
    if (sel.groups[0]!.length < want) return `a boxed ${type} needs at least ${want} runners, got ${sel.groups[0]!.length}`;
    return undefined;
  }
  // A quinella is unordered: one group of two or more runners means every pair of them.
  if (type === 'quinella' && sel.groups.length === 1 && sel.groups[0]!.length >= 2) return undefined;
  if (sel.groups.length !== want) return `a ${type} has ${want} ${unit} separated by "/", got ${sel.groups.length}`;
  return undefined;
}
