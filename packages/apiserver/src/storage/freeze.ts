/**
 * Deep freeze for stored objects, so that a caller mutating what storage handed out (or what it
 * handed in) fails loudly in strict-mode code instead of silently corrupting stored state and
 * the `prev` of changes that watchers have yet to see.
 *
 * Subtrees that are already frozen are skipped: an update usually shares most of its tree with
 * the previous (already frozen) version, so freezing costs only what changed.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (const item of value) deepFreeze(item);
  } else {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}
