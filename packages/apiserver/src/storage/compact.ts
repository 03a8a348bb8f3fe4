/**
 * What storage does to the part of an object a write made new, before keeping it: arrays are
 * copied to their exact length, short string values that recur are shared, and (with
 * `freeze`) the new part is deep-frozen. Stored objects live for as long as the server does, so
 * their slack is worth a walk per write:
 * - an array grown by `push` keeps room for 17 elements (152 bytes) however few it holds, and
 *   `finalizers` or `accessModes` usually hold one;
 * - every object's copy of its namespace, storage class, access modes, capacity, apiVersion or
 *   timestamp is a string of its own (JSON.parse does not share values), 24–60 bytes each.
 *
 * Frozen subtrees are skipped: an update shares most of its tree with the stored version it
 * replaces, which is already compact. Without freezing the whole object is walked; what it
 * changes in a subtree shared with a stored version (an equal array, the same characters) is
 * invisible to every reader.
 */

import { RecentValues } from './recent-values.js';

/** Strings longer than this are rarely repeated (paths, messages) and are left alone. */
const MAX_SHARED_LENGTH = 64;

/**
 * Up to 2 × 2,048 distinct strings: a value repeated every few thousand writes stays; names,
 * uids and resourceVersions pass through without harm.
 */
const strings = new RecentValues<string, string>(2048);

/** The one copy of a short string that storage keeps (the value itself when it is new). */
export function sharedString(value: string): string {
  return value.length > MAX_SHARED_LENGTH ? value : strings.intern(value, value);
}

/** The compact form of one property value: a shared string, an exact-length array, or itself. */
function compactValue(value: unknown): unknown {
  if (typeof value === 'string') return sharedString(value);
  if (Array.isArray(value) && !Object.isFrozen(value)) return value.slice();
  return value;
}

/** Compacts (and freezes, when asked) the parts of `value` that are not frozen yet. */
export function compactStored<T>(value: T, freeze: boolean): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  const node = value as Record<string, unknown> | unknown[];
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) node[i] = compactStored(compactValue(node[i]), freeze);
  } else {
    for (const key of Object.keys(node)) {
      // Assigning an own `__proto__` key would set the prototype instead.
      if (key === '__proto__') compactStored(node[key], freeze);
      else node[key] = compactStored(compactValue(node[key]), freeze);
    }
  }
  if (freeze) Object.freeze(node);
  return value;
}
