/**
 * What the controller's caches keep of an object: everything but `metadata.managedFields`, as
 * kube-controller-manager's informers do (client-go's `SetTransform` with
 * `TrimManagedFields`). No decision reads the field-ownership record, and on a real cluster it
 * is most of each object's bytes (one entry per manager and subresource). Writing a cached copy
 * back is safe without it: a PUT whose body omits managedFields keeps the stored record
 * (kube-apiserver's fieldmanager, `decodeLiveOrNew`; only an explicit `[]` clears it), and the
 * embedded server does the same (test/integration/kube-client/cache/cache-transform.test.ts).
 */
import type { KubeObject } from '@pv-controller/kube/types.js';

/** Shapes each copy before a store keeps it. */
export type CacheTransform<T extends KubeObject> = (obj: T) => T;

/**
 * The object without metadata.managedFields; the object itself when it has none. A copy, never
 * an in-place delete: the caller may still hold the server's answer, and a V8 object with a
 * deleted property falls back to slower, larger dictionary storage.
 */
export function withoutManagedFields<T extends KubeObject>(obj: T): T {
  if (obj.metadata?.managedFields === undefined) return obj;
  const { managedFields: _dropped, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}
