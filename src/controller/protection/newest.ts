/** The copy of an object with the highest integer resourceVersion (the argument wins ties). */
import type { KubeObject } from '../../kube/types.js';

function rvOf(obj: KubeObject): bigint | undefined {
  const rv = obj.metadata.resourceVersion;
  return rv && /^\d+$/.test(rv) ? BigInt(rv) : undefined;
}

export function newer<T extends KubeObject>(given: T, cached: T | undefined): T {
  if (!cached || cached.metadata.uid !== given.metadata.uid) return given;
  const a = rvOf(given);
  const b = rvOf(cached);
  return a !== undefined && b !== undefined && b > a ? cached : given;
}
