/**
 * A set of volume names kept sorted by (capacity, name), so "the smallest volume of at least N
 * bytes" is a binary search. Insert and remove are a binary search plus one array splice.
 */

export interface BucketEntry {
  readonly capacity: bigint;
  readonly name: string;
}

/** Counts the work lookups do, so tests can assert that matching is not a scan of every PV. */
export interface LookupCounters {
  /** Key comparisons made by binary searches. */
  comparisons: number;
  /** Candidate volumes whose remaining predicates (selector, ...) were evaluated. */
  candidatesExamined: number;
}

function compareEntries(a: BucketEntry, b: BucketEntry): number {
  if (a.capacity !== b.capacity) return a.capacity < b.capacity ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

export class CapacityBucket {
  private readonly entries: BucketEntry[] = [];

  get size(): number {
    return this.entries.length;
  }

  insert(entry: BucketEntry): void {
    const at = this.lowerBoundEntry(entry);
    const existing = this.entries[at];
    if (existing && compareEntries(existing, entry) === 0) return;
    this.entries.splice(at, 0, entry);
  }

  remove(entry: BucketEntry): void {
    const at = this.lowerBoundEntry(entry);
    const existing = this.entries[at];
    if (existing && compareEntries(existing, entry) === 0) this.entries.splice(at, 1);
  }

  /**
   * Entries with capacity ≥ `minBytes`, smallest first (ties by name). Lazily produced, so a
   * caller that stops at the first acceptable volume looks at no more than it needs.
   */
  *atLeast(minBytes: bigint, counters?: LookupCounters): Generator<BucketEntry> {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (counters) counters.comparisons++;
      if (this.entries[mid].capacity < minBytes) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.entries.length; i++) yield this.entries[i];
  }

  private lowerBoundEntry(entry: BucketEntry): number {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareEntries(this.entries[mid], entry) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
