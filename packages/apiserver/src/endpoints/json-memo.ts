/**
 * The JSON text of the most recently serialised objects. A write's response and its watch
 * events serialise the same stored object moments apart (the response first, the events on the
 * next flush), so they share one JSON.stringify. Bounded to the last few hundred objects, so
 * nothing is kept for the objects' lifetime (that would double the memory of a stored object).
 *
 * Only for objects that are never mutated after they are first serialised: stored objects (the
 * Storage contract) and response objects on their way out.
 */
import { RecentValues } from '../storage/recent-values.js';

const recent = new RecentValues<object, string>(256);

export function memoizedJson(obj: object): string {
  let json = recent.get(obj);
  if (json === undefined) {
    json = JSON.stringify(obj);
    recent.set(obj, json);
  }
  return json;
}
