/**
 * The order of a list a strategic merge patch merged, as kube-apiserver gives it (apimachinery's
 * normalizeElementOrder): the elements the patch list (or its `$setElementOrder`) names come in
 * the patch's order, and each element only the server had is placed before the first of them
 * that the server held after it. So an element the patch adds goes before the server's elements
 * unless the patch also names one of those ahead of it.
 */
import type { JsonValue } from './json-value.js';

/**
 * The identity two JSON values share when they are equal (merge keys may be any JSON value).
 * Lists are matched through Sets and Maps of these, so a merge costs linear time in the sizes of
 * the list and the patch: pairwise comparison let one 400 KB patch of a primitive list hold the
 * server for a minute and a half.
 */
export function identity(v: JsonValue | undefined): string {
  return String(JSON.stringify(v));
}

/** Each identity's first position in `list`. */
function positions(list: readonly JsonValue[], keyOf: (v: JsonValue) => JsonValue | undefined): Map<string, number> {
  const at = new Map<string, number>();
  list.forEach((v, i) => {
    const key = identity(keyOf(v));
    if (!at.has(key)) at.set(key, i);
  });
  return at;
}

/**
 * `merged` in kube-apiserver's order: `order` is the patch list (or `$setElementOrder`), `server`
 * the list before the patch; `keyOf` gives an element's merge key (the element itself for a list
 * of primitives).
 */
export function normalizeElementOrder(merged: JsonValue[], order: readonly JsonValue[], server: readonly JsonValue[], keyOf: (v: JsonValue) => JsonValue | undefined): JsonValue[] {
  const inOrder = positions(order, keyOf);
  const inServer = positions(server, keyOf);
  const named: Array<{ v: JsonValue; at: number }> = [];
  const serverOnly: JsonValue[] = [];
  for (const v of merged) {
    const at = inOrder.get(identity(keyOf(v)));
    if (at === undefined) serverOnly.push(v);
    else named.push({ v, at });
  }
  named.sort((a, b) => a.at - b.at);
  const out: JsonValue[] = [];
  let i = 0;
  let j = 0;
  while (i < serverOnly.length || j < named.length) {
    if (j >= named.length) out.push(serverOnly[i++]);
    else if (i >= serverOnly.length) out.push(named[j++].v);
    else {
      const left = inServer.get(identity(keyOf(serverOnly[i])));
      const right = inServer.get(identity(keyOf(named[j].v)));
      if (left !== undefined && right !== undefined && left < right) out.push(serverOnly[i++]);
      else out.push(named[j++].v);
    }
  }
  return out;
}
