/**
 * The bounded, in-memory history of committed changes that `changesSince` replays from: a ring
 * of the last `capacity` changes in resourceVersion order. When a change falls out, `floorRV`
 * rises to its resourceVersion; replay from below the floor is refused with ExpiredError (410),
 * which tells a watcher to re-list.
 *
 * resourceVersions in the ring are strictly increasing but need not be contiguous (a failed
 * commit leaves a gap), so validity is tracked by the floor, not by arithmetic on positions.
 */
import { ExpiredError } from '@pv-controller/kube/errors.js';
import type { Change } from './storage.js';

export class ChangeLog {
  private readonly ring: (Change | undefined)[];
  /** Position of the oldest retained change in `ring`. */
  private head = 0;
  private size = 0;
  private floor: number;

  /**
   * @param capacity how many changes to retain (at least 1)
   * @param floorRV replay from any `since >= floorRV` is possible (the store's RV when the
   *   history starts, e.g. 0 for a new store)
   */
  constructor(
    readonly capacity: number,
    floorRV: number,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`change log capacity must be a positive integer, got ${capacity}`);
    }
    this.ring = new Array<Change | undefined>(capacity);
    this.floor = floorRV;
  }

  /** The smallest `since` that `since()` accepts. */
  floorRV(): number {
    return this.floor;
  }

  /** Number of retained changes. */
  length(): number {
    return this.size;
  }

  /** Appends a committed change (its rv must exceed every retained one), evicting the oldest. */
  append(change: Change): void {
    if (this.size === this.capacity) {
      this.floor = this.ring[this.head]!.rv;
      this.ring[this.head] = change;
      this.head = (this.head + 1) % this.capacity;
      return;
    }
    this.ring[(this.head + this.size) % this.capacity] = change;
    this.size++;
  }

  /** Retained changes with rv > since, in order, optionally of one resource. */
  since(since: number, resource?: string): Change[] {
    if (since < this.floor) throw new ExpiredError(since, this.floor);
    const out: Change[] = [];
    for (let i = this.firstAfter(since); i < this.size; i++) {
      const change = this.at(i);
      if (resource === undefined || change.key.resource === resource) out.push(change);
    }
    return out;
  }

  private at(logical: number): Change {
    return this.ring[(this.head + logical) % this.capacity]!;
  }

  /** Logical index of the first retained change with rv > since (binary search). */
  private firstAfter(since: number): number {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at(mid).rv <= since) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
