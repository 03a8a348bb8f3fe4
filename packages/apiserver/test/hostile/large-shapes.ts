/**
 * Requests whose cost grows with the length of a list they carry (issue 24): many owner
 * references with `controller: true`, allowedTopologies terms, tolerations, empty access modes,
 * finalizers, mount options, and a forged continue token. Each is built at any size, so the
 * integration tests, the corpus and bench/hostile-limits.ts send the same shapes.
 */

export const PVS = '/api/v1/persistentvolumes';
export const SCS = '/apis/storage.k8s.io/v1/storageclasses';

export function claimsPath(namespace: string): string {
  return `/api/v1/namespaces/${namespace}/persistentvolumeclaims`;
}

export function podsPath(namespace: string): string {
  return `/api/v1/namespaces/${namespace}/pods`;
}

type Json = Record<string, unknown>;

/** A PersistentVolume whose spec and metadata take `spec` and `metadata` on top of a valid hostPath volume. */
export function pvWith(name: string, spec: Json = {}, metadata: Json = {}): Json {
  return {
    apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name, ...metadata },
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/tmp/${name}` }, ...spec },
  };
}

export function claimWith(name: string, namespace: string, metadata: Json = {}): Json {
  return {
    apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name, namespace, ...metadata },
    spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'none', resources: { requests: { storage: '1Gi' } } },
  };
}

export function storageClassWith(name: string, extra: Json = {}): Json {
  return { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name }, provisioner: 'example.com/none', ...extra };
}

export function podWith(name: string, namespace: string, spec: Json = {}): Json {
  return {
    apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace },
    spec: { containers: [{ name: 'c', image: 'busybox' }], ...spec },
  };
}

/** `count` owner references that each say only `controller: true` (74 KB at 3,700). */
export function controllerRefs(count: number): Json[] {
  return Array.from({ length: count }, () => ({ controller: true }));
}

/** `count` complete owner references, the first `controllers` of them with `controller: true`. */
export function ownerRefs(count: number, controllers = 0): Json[] {
  return Array.from({ length: count }, (_, i) => ({
    apiVersion: 'v1', kind: 'ConfigMap', name: `owner-${i}`, uid: `uid-${i}`, ...(i < controllers ? { controller: true } : {}),
  }));
}

/** `count` empty owner references (`{}`): four causes each. */
export function emptyRefs(count: number): Json[] {
  return Array.from({ length: count }, () => ({}));
}

/** `count` distinct finalizer names, valid ones or names no qualified name can be ("-f<i>"). */
export function finalizers(count: number, valid = true): string[] {
  return Array.from({ length: count }, (_, i) => (valid ? `example.com/f${i}` : `-f${i}`));
}

/** `count` allowedTopologies terms, distinct or all alike (at most 56 bytes each: 52,000 is a 2.9 MB body). */
export function topologyTerms(count: number, distinct = true): Json[] {
  return Array.from({ length: count }, (_, i) => ({ matchLabelExpressions: [{ key: 'k', values: [distinct ? String(i) : 'z'] }] }));
}

/** `count` distinct tolerations. */
export function tolerations(count: number): Json[] {
  return Array.from({ length: count }, (_, i) => ({ key: `k${i}`, operator: 'Exists', effect: 'NoSchedule' }));
}

/** `count` copies of `value` as one JSON array, built as text (a million elements stringify slowly). */
export function repeatedJsonArray(value: string, count: number): string {
  return count === 0 ? '[]' : `[${`${JSON.stringify(value)},`.repeat(count - 1)}${JSON.stringify(value)}]`;
}

/** A PV body whose `field` under spec is `arrayText` (a JSON array written as text). */
export function pvTextWithSpecArray(name: string, field: 'accessModes' | 'mountOptions', arrayText: string): string {
  const body = JSON.stringify(pvWith(name, { [field]: '@@ARRAY@@' }));
  return body.replace('"@@ARRAY@@"', arrayText);
}

/** A continue token of this server's form that names `rv` as its list's resourceVersion. */
export function forgedContinueToken(rv: unknown): string {
  return Buffer.from(JSON.stringify({ rv, after: ['', 'a'] })).toString('base64url');
}

/** A continue token of kube-apiserver's own form (v, rv, start). */
export function upstreamContinueToken(rv: unknown, start = 'a'): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64url');
}
