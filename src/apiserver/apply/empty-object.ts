/**
 * What kube-apiserver compares a new object against on create: the kind's empty Go object as it
 * serialises, where structs held by value (not behind a pointer) are present though empty. So a
 * create's managedFields own `spec` and `status` without a `"."` of their own, but a map or a
 * pointer struct the body sets (labels, capacity, hostPath) with one. These are the by-value
 * struct fields of the Go types, by kind.
 */
import type { KubeObject } from '../../kube/types.js';

type Skeleton = Record<string, unknown>;

const specAndStatus: Skeleton = { spec: {}, status: {} };

const BY_KIND: Record<string, Skeleton> = {
  PersistentVolume: specAndStatus,
  PersistentVolumeClaim: { spec: { resources: {} }, status: {} },
  Namespace: specAndStatus,
  Node: { spec: {}, status: { daemonEndpoints: { kubeletEndpoint: {} }, nodeInfo: {} } },
  Pod: specAndStatus,
  Lease: { spec: {} },
};

const BY_GROUP_KIND: Record<string, Skeleton> = {
  '/Event': { involvedObject: {}, source: {} },
  'events.k8s.io/Event': { regarding: {}, deprecatedSource: {} },
};

/** The empty object of a kind, as the base a create is compared with. */
export function emptyObjectOf(group: string, kind: string): KubeObject {
  const body = BY_GROUP_KIND[`${group}/${kind}`] ?? BY_KIND[kind] ?? {};
  return { ...structuredClone(body), metadata: {} } as KubeObject;
}
