/**
 * The strategic-merge-patch metadata of our kinds, taken from the Go struct tags
 * (`patchStrategy:"merge" patchMergeKey:"..."`). A list without an entry here is atomic: a patch
 * replaces it whole (accessModes, mountOptions, nodeSelectorTerms, allowedTopologies, ...).
 * Maps always merge.
 */
export interface PatchMeta {
  /** `merge`: a primitive list is a set union; with `mergeKey`, elements merge by that key. */
  listStrategy?: 'merge';
  mergeKey?: string;
  /** Meta of the fields of this object, or of each element when this is a list of objects. */
  fields?: Record<string, PatchMeta>;
}

const mergeBy = (mergeKey: string, fields?: Record<string, PatchMeta>): PatchMeta =>
  fields ? { listStrategy: 'merge', mergeKey, fields } : { listStrategy: 'merge', mergeKey };
const primitiveSet: PatchMeta = { listStrategy: 'merge' };

const objectMeta: PatchMeta = {
  fields: {
    finalizers: primitiveSet,
    ownerReferences: mergeBy('uid'),
  },
};

const conditionsByType = mergeBy('type');

const container: Record<string, PatchMeta> = {
  ports: mergeBy('containerPort'),
  env: mergeBy('name'),
  volumeMounts: mergeBy('mountPath'),
  volumeDevices: mergeBy('devicePath'),
  resizePolicy: { listStrategy: 'merge', mergeKey: 'resourceName' },
};

const pod: PatchMeta = {
  fields: {
    metadata: objectMeta,
    spec: {
      fields: {
        containers: mergeBy('name', container),
        initContainers: mergeBy('name', container),
        ephemeralContainers: mergeBy('name', container),
        volumes: mergeBy('name'),
        imagePullSecrets: mergeBy('name'),
        hostAliases: mergeBy('ip'),
        topologySpreadConstraints: mergeBy('topologyKey'),
        resourceClaims: mergeBy('name'),
      },
    },
    status: { fields: { conditions: conditionsByType, podIPs: mergeBy('ip') } },
  },
};

const withStatusConditions: PatchMeta = {
  fields: { metadata: objectMeta, status: { fields: { conditions: conditionsByType } } },
};

const node: PatchMeta = {
  fields: {
    metadata: objectMeta,
    spec: { fields: { podCIDRs: primitiveSet } },
    status: { fields: { conditions: conditionsByType, addresses: mergeBy('type') } },
  },
};

const onlyMetadata: PatchMeta = { fields: { metadata: objectMeta } };

const byKind: Record<string, PatchMeta> = {
  PersistentVolumeClaim: withStatusConditions,
  Namespace: withStatusConditions,
  Pod: pod,
  Node: node,
};

/** Patch meta for a Kind; kinds without merge lists beyond metadata get `onlyMetadata`. */
export function patchMetaForKind(kind: string): PatchMeta {
  return Object.hasOwn(byKind, kind) ? byKind[kind] : onlyMetadata;
}
