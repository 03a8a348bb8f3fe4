/**
 * How server-side apply merges the lists, maps and structs of the kinds we serve: the
 * `+listType`, `+listMapKey`, `+mapType` and `+structType` markers of the Go types in k8s.io/api
 * and k8s.io/apimachinery (published as x-kubernetes-list-type and friends in the OpenAPI
 * documents). Structured-merge-diff's defaults hold for everything not listed: a list without a
 * list type is atomic, maps and structs are granular.
 *
 * Keyed by the Go type (as `decode/schema.ts` names it, "v1.PersistentVolumeSpec") and field.
 */

export interface FieldSemantics {
  listType?: 'atomic' | 'set' | 'map';
  listMapKeys?: readonly string[];
  /** For a map or struct field: atomic replaces it whole; granular overrides an atomic type. */
  mapType?: 'atomic' | 'granular';
}

/** The lookup the apply engine reads; the OpenAPI schemas can stand behind the same shape. */
export interface ApplySemantics {
  field(goType: string, field: string): FieldSemantics | undefined;
  /** A struct type whose values are replaced whole (`+structType=atomic`). */
  atomicStruct(goType: string): boolean;
}

const set: FieldSemantics = { listType: 'set' };
const map = (...keys: string[]): FieldSemantics => ({ listType: 'map', listMapKeys: keys });
const atomicMap: FieldSemantics = { mapType: 'atomic' };

const containerLists: Record<string, FieldSemantics> = {
  env: map('name'),
  ports: map('containerPort', 'protocol'),
  volumeDevices: map('devicePath'),
  volumeMounts: map('mountPath'),
};

const FIELDS: Record<string, Record<string, FieldSemantics>> = {
  'v1.ObjectMeta': { finalizers: set, ownerReferences: map('uid') },
  'v1.PersistentVolumeSpec': { claimRef: { mapType: 'granular' } },
  'v1.PersistentVolumeClaimStatus': { conditions: map('type'), allocatedResourceStatuses: { mapType: 'granular' } },
  'v1.NamespaceStatus': { conditions: map('type') },
  'v1.NodeSpec': { podCIDRs: set },
  'v1.NodeStatus': { addresses: map('type'), conditions: map('type') },
  'v1.PodSpec': {
    containers: map('name'),
    initContainers: map('name'),
    ephemeralContainers: map('name'),
    volumes: map('name'),
    imagePullSecrets: map('name'),
    hostAliases: map('ip'),
    resourceClaims: map('name'),
    schedulingGates: map('name'),
    topologySpreadConstraints: map('topologyKey', 'whenUnsatisfiable'),
    nodeSelector: atomicMap,
  },
  'v1.PodStatus': { conditions: map('type'), podIPs: map('ip'), resourceClaimStatuses: map('name'), volumeHealth: map('name') },
  'v1.Container': containerLists,
  'v1.EphemeralContainer': containerLists,
  'v1.ContainerStatus': { volumeMounts: map('mountPath'), allocatedResourcesStatus: map('name') },
  'v1.ResourceRequirements': { claims: map('name') },
  'v1.VolumeMount': { bindMountOptions: set },
};

const ATOMIC_STRUCTS = new Set([
  'v1.ObjectReference',
  'v1.LocalObjectReference',
  'v1.TypedLocalObjectReference',
  'v1.SecretReference',
  'v1.OwnerReference',
  'v1.LabelSelector',
  'v1.NodeSelector',
  'v1.NodeSelectorTerm',
  'v1.TopologySelectorTerm',
  'v1.ConfigMapKeySelector',
  'v1.SecretKeySelector',
  'v1.ObjectFieldSelector',
  'v1.ResourceFieldSelector',
  'v1.FileKeySelector',
]);

export const kubernetesApplySemantics: ApplySemantics = {
  field: (goType, field) => FIELDS[goType]?.[field],
  atomicStruct: (goType) => ATOMIC_STRUCTS.has(goType),
};
