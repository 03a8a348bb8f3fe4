/**
 * A set of field paths, as server-side apply records ownership. Each node is one path element in
 * its FieldsV1 spelling (`f:name`, `k:{"name":"a"}`, `v:"x"`, `i:0`); a node is a member when
 * its path itself belongs to the set (FieldsV1's `".": {}`, or a leaf `{}`), and has children
 * for the paths below it. Nodes without members below them are never kept.
 */

export class FieldSet {
  member = false;
  children: Map<string, FieldSet> | undefined;

  get isEmpty(): boolean {
    return !this.member && (this.children === undefined || this.children.size === 0);
  }

  child(element: string): FieldSet | undefined {
    return this.children?.get(element);
  }

  /** The node at `element`, created when missing. */
  ensure(element: string): FieldSet {
    this.children ??= new Map();
    let node = this.children.get(element);
    if (!node) {
      node = new FieldSet();
      this.children.set(element, node);
    }
    return node;
  }

  insert(path: readonly string[]): void {
    if (path.length === 0) {
      this.member = true;
      return;
    }
    this.ensure(path[0]).insert(path.slice(1));
  }

  has(path: readonly string[]): boolean {
    if (path.length === 0) return this.member;
    return this.child(path[0])?.has(path.slice(1)) ?? false;
  }

  clone(): FieldSet {
    const out = new FieldSet();
    out.member = this.member;
    if (this.children) for (const [k, c] of this.children) out.children = (out.children ?? new Map()).set(k, c.clone());
    return out;
  }

  /** Removes an empty child so the tree holds only paths with members below them. */
  private dropIfEmpty(element: string): void {
    if (this.children?.get(element)?.isEmpty) this.children.delete(element);
  }

  /** This set with `other`'s members added (mutates and returns this). */
  unionWith(other: FieldSet): FieldSet {
    if (other.member) this.member = true;
    if (other.children) for (const [k, c] of other.children) this.ensure(k).unionWith(c);
    return this;
  }

  /** This set without `other`'s members (mutates and returns this). */
  subtract(other: FieldSet): FieldSet {
    if (other.member) this.member = false;
    if (this.children && other.children) {
      for (const [k, c] of other.children) {
        const mine = this.children.get(k);
        if (!mine) continue;
        mine.subtract(c);
        this.dropIfEmpty(k);
      }
    }
    return this;
  }

  /** This set without `other`'s members nor anything below them (mutates and returns this). */
  subtractRecursively(other: FieldSet): FieldSet {
    if (other.member) {
      this.member = false;
      this.children = undefined;
      return this;
    }
    if (this.children && other.children) {
      for (const [k, c] of other.children) {
        const mine = this.children.get(k);
        if (!mine) continue;
        mine.subtractRecursively(c);
        this.dropIfEmpty(k);
      }
    }
    return this;
  }

  /** A new set of the members both sets hold. */
  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    out.member = this.member && other.member;
    if (this.children && other.children) {
      for (const [k, c] of this.children) {
        const theirs = other.children.get(k);
        if (!theirs) continue;
        const both = c.intersection(theirs);
        if (!both.isEmpty) out.ensure(k).unionWith(both);
      }
    }
    return out;
  }

  /** Whether the sets share a member (what `subtract` would remove). */
  overlaps(other: FieldSet): boolean {
    if (this.member && other.member) return true;
    if (!this.children || !other.children) return false;
    const [small, large] = this.children.size <= other.children.size ? [this.children, other.children] : [other.children, this.children];
    for (const [k, c] of small) {
      const theirs = large.get(k);
      if (theirs && c.overlaps(theirs)) return true;
    }
    return false;
  }

  /** Whether every member of `other` is a member of this set (a union would add nothing). */
  covers(other: FieldSet): boolean {
    if (other.member && !this.member) return false;
    if (!other.children) return true;
    for (const [k, c] of other.children) {
      const mine = this.children?.get(k);
      if (!mine || !mine.covers(c)) return false;
    }
    return true;
  }

  /**
   * Every member path, depth first, children in FieldsV1 order. Collected into one array (a
   * spread push of a child's paths overflowed the stack at ~100,000 finalizers or list values).
   */
  paths(prefix: string[] = [], out: string[][] = []): string[][] {
    if (this.member && prefix.length > 0) out.push(prefix);
    for (const k of sortedElements(this.children)) this.children!.get(k)!.paths([...prefix, k], out);
    return out;
  }

  equals(other: FieldSet): boolean {
    if (this.member !== other.member) return false;
    const a = this.children?.size ?? 0;
    const b = other.children?.size ?? 0;
    if (a !== b) return false;
    for (const [k, c] of this.children ?? []) {
      const theirs = other.children?.get(k);
      if (!theirs || !c.equals(theirs)) return false;
    }
    return true;
  }

  static union(sets: Iterable<FieldSet>): FieldSet {
    const out = new FieldSet();
    for (const s of sets) out.unionWith(s);
    return out;
  }
}

const ELEMENT_ORDER: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

/** Path elements as structured-merge-diff orders them: fields, then keys, values and indices. */
export function compareElements(a: string, b: string): number {
  const byType = (ELEMENT_ORDER[a[0]] ?? 4) - (ELEMENT_ORDER[b[0]] ?? 4);
  if (byType !== 0) return byType;
  if (a[0] === 'i') return Number(a.slice(2)) - Number(b.slice(2));
  return a < b ? -1 : a > b ? 1 : 0;
}

export function sortedElements(children: Map<string, FieldSet> | undefined): string[] {
  return children ? [...children.keys()].sort(compareElements) : [];
}

export const fieldElement = (name: string): string => `f:${name}`;
export const valueElement = (value: unknown): string => `v:${JSON.stringify(value)}`;
export const indexElement = (index: number): string => `i:${index}`;

/** `k:{...}` with the key fields in name order, as FieldsV1 writes them. */
export function keyElement(item: Record<string, unknown>, keys: readonly string[]): string {
  const sorted = keys.length > 1 ? [...keys].sort() : keys;
  const parts = sorted.filter((k) => item[k] !== undefined).map((k) => `${JSON.stringify(k)}:${JSON.stringify(item[k])}`);
  return `k:{${parts.join(',')}}`;
}

/** A path as conflicts print it: `.spec.containers[name="app"].image`, `.metadata.finalizers[="a"]`. */
export function pathString(path: readonly string[]): string {
  return path.map(elementString).join('');
}

function elementString(element: string): string {
  const body = element.slice(2);
  switch (element[0]) {
    case 'f':
      return `.${body}`;
    case 'k': {
      const key = JSON.parse(body) as Record<string, unknown>;
      return `[${Object.entries(key).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}]`;
    }
    case 'v':
      return `[=${body}]`;
    default:
      return `[${body}]`;
  }
}
