/** The key every store, queue and log line names an object by. */
import type { KubeObject } from './types.js';

/** Key of a namespaced object: "namespace/name"; of a cluster-scoped one: "name". */
export type ObjectKeyString = string;

export function keyOf(obj: KubeObject): ObjectKeyString {
  const ns = obj.metadata.namespace;
  return ns ? `${ns}/${obj.metadata.name ?? ''}` : (obj.metadata.name ?? '');
}
