/**
 * A bounded table of recently used entries in two generations: a hit in the older one moves the
 * entry to the newer one, and when the newer one is full it becomes the older one and the
 * oldest is dropped whole. Nothing is deleted one by one: a Map's deleted entries stay as holes
 * until it rehashes, and finding the oldest entry of a Map with many holes walks them all, so
 * first-in-first-out eviction from one Map costs up to half its size per insertion.
 */
export class RecentValues<K, V> {
  private young = new Map<K, V>();
  private old = new Map<K, V>();

  /** Keeps between `generationSize` and twice as many entries. */
  constructor(private readonly generationSize: number) {}

  get(key: K): V | undefined {
    const known = this.young.get(key);
    if (known !== undefined) return known;
    const older = this.old.get(key);
    if (older !== undefined) this.set(key, older);
    return older;
  }

  set(key: K, value: V): void {
    if (this.young.size >= this.generationSize) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, value);
  }

  /** The value remembered for `key`, else `value`, which is then remembered. */
  intern(key: K, value: V): V {
    const known = this.get(key);
    if (known !== undefined) return known;
    this.set(key, value);
    return value;
  }
}
