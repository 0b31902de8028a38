// Placings for property tests of settlement: a finishing order cut into dead-heat groups.

/** Places from a finishing order cut into dead-heat groups, scratched runners left out, at least 3 placed when as many run (a final result of these races must fill its places paid and its trifecta). */
export function placings(order: number[], groups: number[], scratched: Set<number>): number[][] {
  const runners = order.filter((r) => !scratched.has(r));
  const out: number[][] = [];
  for (const size of groups) if (runners.length) out.push(runners.splice(0, size));
  while (out.flat().length < 3 && runners.length) out.push(runners.splice(0, 1));
  return out;
}
