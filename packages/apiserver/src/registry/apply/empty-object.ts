/**
 * What kube-apiserver compares a new object against on create: the kind's empty Go object as it
 * serialises, where structs held by value (not behind a pointer) are present though empty, a
 * string without omitempty is "" and a time held by value is null. So a create's managedFields
 * own `spec` and `status` without a `"."` of their own, but a map or a pointer struct the body
 * sets (labels, capacity, hostPath) with one; and nobody owns a field a write leaves at the
 * value the empty object has (an Event's empty reportingComponent). These are those fields of
 * the Go types, by kind.
 */
import type { KubeObject } from '@pv-controller/kube/types.js';
import { deepFreeze } from '../../storage/freeze.js';

type Skeleton = Record<string, unknown>;

const specAndStatus: Skeleton = { spec: {}, status: {} };

/** A PodTemplateSpec held by value (apps/v1 workloads): its metadata and spec are there, containers null. */
const byValueTemplate = (): Skeleton => ({ metadata: {}, spec: { containers: null } });

const BY_KIND: Record<string, Skeleton> = {
  PersistentVolume: specAndStatus,
  PersistentVolumeClaim: { spec: { resources: {} }, status: {} },
  Namespace: specAndStatus,
  Node: { spec: {}, status: { daemonEndpoints: { kubeletEndpoint: {} }, nodeInfo: {} } },
  // PodSpec.containers has no omitempty: an empty Pod carries `containers: null`.
  Pod: { spec: { containers: null }, status: {} },
  Lease: { spec: {} },
  Service: { spec: {}, status: { loadBalancer: {} } },
  SelfSubjectAccessReview: specAndStatus,
  // A ReplicationController's template is a pointer; the apps/v1 kinds hold theirs by value.
  ReplicationController: specAndStatus,
  Deployment: { spec: { template: byValueTemplate(), strategy: {} }, status: {} },
  ReplicaSet: { spec: { template: byValueTemplate() }, status: {} },
  DaemonSet: { spec: { template: byValueTemplate(), updateStrategy: {} }, status: {} },
  // CSINodeSpec.drivers has no omitempty: an empty CSINode carries `drivers: null`.
  CSINode: { spec: { drivers: null }, status: {} },
};

const BY_GROUP_KIND: Record<string, Skeleton> = {
  '/Event': {
    involvedObject: {}, source: {}, firstTimestamp: null, lastTimestamp: null, eventTime: null, reportingComponent: '', reportingInstance: '',
  },
  'events.k8s.io/Event': { eventTime: null, regarding: {}, deprecatedSource: {}, deprecatedFirstTimestamp: null, deprecatedLastTimestamp: null },
};

function skeletonOf(group: string, kind: string): Skeleton {
  return BY_GROUP_KIND[`${group}/${kind}`] ?? BY_KIND[kind] ?? {};
}

/** The empty object of a kind, as the base a create is compared with. */
export function emptyObjectOf(group: string, kind: string): KubeObject {
  return { ...structuredClone(skeletonOf(group, kind)), metadata: {} } as KubeObject;
}

const frozenEmpty = new Map<string, KubeObject>();

/** emptyObjectOf, one frozen copy per kind: for comparisons, which only read it. */
export function frozenEmptyObjectOf(group: string, kind: string): KubeObject {
  const key = `${group}/${kind}`;
  let out = frozenEmpty.get(key);
  if (out === undefined) {
    out = deepFreeze(emptyObjectOf(group, kind));
    frozenEmpty.set(key, out);
  }
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function fill(value: Record<string, unknown>, skeleton: Skeleton): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const [k, empty] of Object.entries(skeleton)) {
    const have = value[k];
    const next = have === undefined ? empty : isObject(have) && isObject(empty) ? fill(have, empty) : have;
    if (next === have) continue;
    out ??= { ...value };
    out[k] = next;
  }
  return out ?? value;
}

/**
 * An object with the by-value structs it lacks filled in empty, as the Go types always hold
 * them: a Node stored without spec compares like one with `spec: {}`. The result shares
 * structure with `obj` and must not be mutated.
 */
export function withByValueStructs(group: string, kind: string, obj: KubeObject): KubeObject {
  return fill(obj as unknown as Record<string, unknown>, skeletonOf(group, kind)) as unknown as KubeObject;
}
