// How many distinct combinations a selection covers, the base of a tote bet's percentage
// (stake ÷ combinations × 100 of a $1 unit). Pure and exact: counts are integers.
import { KIND_RULES, MAX_MULTI_LEGS, MAX_RUNNERS_PER_POSITION, type BetKind } from './bet-kinds.ts';

/** Why a selection is not a bet of its kind, or undefined when it is well-formed. */
export function selectionProblem(kind: BetKind, legs: number[][][], boxed: boolean): string | undefined {
  const rule = KIND_RULES[kind];
  if (rule.legs === 'many' ? legs.length < 2 : legs.length !== rule.legs) {
    return rule.legs === 'many' ? `${kind} needs at least 2 legs` : `${kind} takes ${rule.legs} leg${rule.legs === 1 ? '' : 's'}, got ${legs.length}`;
  }
  if (rule.legs === 'many' && legs.length > MAX_MULTI_LEGS) return `${kind} takes at most ${MAX_MULTI_LEGS} legs, got ${legs.length}`;
  for (const [i, positions] of legs.entries()) {
    const where = legs.length > 1 ? `legs[${i}]` : 'legs[0]';
    for (const [p, runners] of positions.entries()) {
      if (runners.length === 0) return `${where}.selections[${p}] is empty`;
      if (runners.length > MAX_RUNNERS_PER_POSITION) return `${where}.selections[${p}] lists more than ${MAX_RUNNERS_PER_POSITION} runners`;
      if (runners.some((r) => !Number.isInteger(r) || r < 1 || r > 99)) return `${where}.selections[${p}] holds a runner number outside 1-99`;
      if (new Set(runners).size !== runners.length) return `${where}.selections[${p}] names a runner twice`;
    }
    const problem = positionsProblem(kind, positions, boxed);
    if (problem) return `${where}: ${problem}`;
  }
  return undefined;
}

function positionsProblem(kind: BetKind, positions: number[][], boxed: boolean): string | undefined {
  const rule = KIND_RULES[kind];
  if (rule.positions === 1) {
    if (boxed) return `${kind} cannot be boxed`;
    if (positions.length !== 1) return `${kind} takes one list of runners per leg`;
    if ((kind === 'WIN' || kind === 'PLACE' || kind === 'MULTI') && positions[0]!.length !== 1) return `${kind} takes exactly one runner per leg`;
    return undefined;
  }
  // Exotics: one boxed list of at least `positions` runners, or one list per position (a standout);
  // a quinella's single list is a box by nature (its two places are in any order).
  const single = positions.length === 1;
  if (boxed || (single && !rule.ordered)) {
    if (!single) return `a boxed ${kind} takes one list of runners`;
    if (positions[0]!.length < rule.positions) return `a boxed ${kind} needs at least ${rule.positions} runners`;
    return undefined;
  }
  if (positions.length !== rule.positions) return `${kind} takes ${rule.positions} positions (or one list with boxed), got ${positions.length}`;
  if (countOrdered(positions) === 0) return `${kind} selection covers no combination of different runners`;
  return undefined;
}

/** n × (n−1) × … for k factors: ordered arrangements of k among n runners. */
export function fallingFactorial(n: number, k: number): number {
  let out = 1;
  for (let i = 0; i < k; i++) out *= n - i;
  return Math.max(out, 0);
}

/**
 * Ordered tuples, one runner from each position, no runner twice. Counted by inclusion–exclusion
 * over the set partitions of the positions (Möbius inversion on the partition lattice): a partition
 * counts the tuples whose positions in each block share one runner (common to their lists),
 * weighted by (−1)^(|B|−1)·(|B|−1)! a block. Fifteen partitions for four positions: microseconds,
 * where walking every tuple took about 90 ms for 40 runners in each of four positions.
 */
export function countOrdered(positions: number[][]): number {
  const lists = positions.map((p) => new Set(p));
  let total = 0;
  for (const blocks of setPartitions(positions.length)) {
    let term = 1;
    for (const block of blocks) {
      term *= (block.length % 2 === 1 ? 1 : -1) * fallingFactorial(block.length - 1, block.length - 1) * inAll(lists, block);
      if (term === 0) break;
    }
    total += term;
  }
  return total;
}

/** Every partition of positions 0..n−1 into blocks. */
function setPartitions(n: number): number[][][] {
  let partitions: number[][][] = [[]];
  for (let i = 0; i < n; i++) {
    partitions = partitions.flatMap((blocks) => [
      ...blocks.map((_, b) => blocks.map((block, j) => (j === b ? [...block, i] : block))),
      [...blocks, [i]],
    ]);
  }
  return partitions;
}

/** How many runners are in every list of the block. */
function inAll(lists: Array<Set<number>>, block: number[]): number {
  let count = 0;
  for (const runner of lists[block[0]!]!) if (block.every((p) => lists[p]!.has(runner))) count += 1;
  return count;
}

/** Distinct unordered pairs {a, b}, a from the first list and b from the second, a ≠ b. */
export function countUnorderedPairs(first: number[], second: number[]): number {
  const pairs = new Set<string>();
  for (const a of first) for (const b of second) if (a !== b) pairs.add(a < b ? `${a}-${b}` : `${b}-${a}`);
  return pairs.size;
}

/** The number of combinations of a well-formed selection (selectionProblem returned undefined). */
export function combinations(kind: BetKind, legs: number[][][], boxed: boolean): number {
  const rule = KIND_RULES[kind];
  if (rule.positions === 1) return legs.reduce((n, positions) => n * positions[0]!.length, 1);
  const positions = legs[0]!;
  const box = boxed || (positions.length === 1 && !rule.ordered);
  if (box) {
    const arrangements = fallingFactorial(positions[0]!.length, rule.positions);
    return rule.ordered ? arrangements : arrangements / fallingFactorial(rule.positions, rule.positions);
  }
  return rule.ordered ? countOrdered(positions) : countUnorderedPairs(positions[0]!, positions[1]!);
}
