/**
 * Which root of a node a new host-path volume goes to: the class's `placement` parameter names a
 * policy, and the policy picks among the roots that can still hold the volume.
 *
 * - `leastAllocated` (the default): the root with the most room left, spreading volumes out;
 * - `mostAllocated`: the root with the least room that still fits it (bin-packing, keeping whole
 *   roots free for large volumes);
 * - `weighted`: roots fill in proportion to their weights (`--host-path-root-weight`): the root
 *   whose given bytes, with this volume, are smallest per unit of weight. A root of weight 0 takes
 *   no volume of a weighted class.
 *
 * Pure: the caller measures the roots (root-placer.ts) and holds the lock that makes the choice
 * and its reservation one step. Ties go to the root named first in sort order, so the same numbers
 * always give the same root.
 */
export const PLACEMENT_PARAMETER = 'placement';
export const PLACEMENTS = ['leastAllocated', 'mostAllocated', 'weighted'] as const;
export type Placement = (typeof PLACEMENTS)[number];
export const DEFAULT_PLACEMENT: Placement = 'leastAllocated';
/** Weights are small whole numbers: enough for any ratio an admin means, and exact to compare. */
export const MAX_ROOT_WEIGHT = 1000;

/** One root, measured: what it can still take for this class and what it has given out so far. */
export interface RootCandidate {
  root: string;
  /** The largest volume the root can still take for this class. */
  roomBytes: bigint;
  /** What the root's volumes were given (sized and plain). */
  givenBytes: bigint;
  weight: number;
}

export function placementOf(parameters: Record<string, string>): Placement {
  const value = parameters[PLACEMENT_PARAMETER];
  return value !== undefined && (PLACEMENTS as readonly string[]).includes(value) ? (value as Placement) : DEFAULT_PLACEMENT;
}

export function placementProblem(value: string): string | undefined {
  return (PLACEMENTS as readonly string[]).includes(value) ? undefined : `must be one of ${PLACEMENTS.join(', ')}, got "${value}"`;
}

/** Whether a root takes volumes of a class with this policy (weighted classes skip roots of weight 0). */
export function usableBy(policy: Placement, weight: number): boolean {
  return policy !== 'weighted' || weight > 0;
}

/** The root for a volume of `bytes` among roots that fit it (`roomBytes >= bytes`); undefined when none does. */
export function chooseRoot(candidates: readonly RootCandidate[], bytes: bigint, policy: Placement): RootCandidate | undefined {
  const fitting = candidates.filter((c) => c.roomBytes >= bytes && usableBy(policy, c.weight)).sort((a, b) => (a.root < b.root ? -1 : a.root > b.root ? 1 : 0));
  let best: RootCandidate | undefined;
  for (const c of fitting) {
    if (best === undefined || better(c, best, bytes, policy)) best = c;
  }
  return best;
}

function better(c: RootCandidate, best: RootCandidate, bytes: bigint, policy: Placement): boolean {
  switch (policy) {
    case 'leastAllocated':
      return c.roomBytes > best.roomBytes;
    case 'mostAllocated':
      return c.roomBytes < best.roomBytes;
    case 'weighted':
      // (given_c + bytes) / w_c < (given_best + bytes) / w_best, compared exactly.
      return (c.givenBytes + bytes) * BigInt(best.weight) < (best.givenBytes + bytes) * BigInt(c.weight);
  }
}
