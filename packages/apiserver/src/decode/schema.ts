/**
 * The type of every field, at every depth, of the kinds we serve, read from
 * @kubernetes/client-node's generated models: each model class carries a static
 * `attributeTypeMap` ([{ baseName, type, format }]) with types such as 'string', 'number'
 * (format int32/int64/double), 'boolean', 'Date', 'V1MicroTime', 'IntOrString', 'any',
 * 'Array<V1Foo>', '{ [key: string]: string; }' or another model's class name.
 *
 * Three facts of the Go types are lost in that generation and restored here, each as a rule
 * rather than a copy of the Go structs: which string fields are resource.Quantity (Go accepts
 * a JSON number there and rewrites it canonically), which fields Go reaches through an
 * embedded struct (its name shows in Go's error paths: "spec.PersistentVolumeSource.hostPath"),
 * and the named string types of enumerated fields, which Go's type errors name.
 *
 * Schemas are built on first use per kind and kept for the life of the process.
 */
// The models alone: the package's index also loads its ~60 API classes and their HTTP stack,
// ~37 MB of the embedded server's RSS that it never used (empty server 146 → 109 MB).
import * as models from '@kubernetes/client-node/dist/gen/models/all.js';
import { definitionsFile } from '../openapi/definitions.js';
import type { ResourceInfo } from '../resources/strategy.js';

type LeafKind =
  | 'string' | 'bool' | 'int32' | 'int64' | 'float64' | 'time' | 'microTime' | 'quantity' | 'intOrString' | 'bytes' | 'free';

export interface LeafSchema {
  kind: LeafKind;
  /** Go's name of a named string type (v1.PersistentVolumeAccessMode), as its errors print it. */
  goType?: string;
}
interface ArraySchema {
  kind: 'array';
  items: TypeSchema;
}
interface MapSchema {
  kind: 'map';
  values: TypeSchema;
  /** Go's name of the map type when it is a named one (v1.ResourceList). */
  goType?: string;
}
export interface StructSchema {
  kind: 'struct';
  /** Go package and type, as Go's errors print it: "v1.PersistentVolumeSpec". */
  goType: string;
  /** The Go struct's own name: "PersistentVolumeSpec". */
  goName: string;
  fields: Map<string, FieldSchema>;
  /** The type of fields it does not name; absent: such fields are unknown and dropped. */
  otherFields?: TypeSchema;
}
export type TypeSchema = LeafSchema | ArraySchema | MapSchema | StructSchema;

export interface FieldSchema {
  type: TypeSchema;
  /** The field's segment in Go's error paths ("hostPath", "PersistentVolumeSource.hostPath"). */
  goPath: string;
}

interface Attribute {
  baseName: string;
  type: string;
  format: string;
}
interface ModelClass {
  getAttributeTypeMap(): Attribute[];
}

/** resource.Quantity fields, which the generated models type as plain strings. */
export const QUANTITY_FIELDS: Readonly<Record<string, readonly string[]>> = {
  V1PersistentVolumeSpec: ['capacity'],
  V1PersistentVolumeClaimStatus: ['capacity', 'allocatedResources'],
  V1VolumeResourceRequirements: ['limits', 'requests'],
  V1ResourceRequirements: ['limits', 'requests'],
  V1NodeStatus: ['capacity', 'allocatable'],
  V1PodSpec: ['overhead'],
  V1ContainerStatus: ['allocatedResources'],
  V1EmptyDirVolumeSource: ['sizeLimit'],
  V1CSIStorageCapacity: ['capacity', 'maximumVolumeSize'],
};

/**
 * Enumerated string fields and their named Go types (package v1), for the type errors of the
 * kinds served here: "cannot unmarshal number into ... of type v1.PersistentVolumeReclaimPolicy".
 */
const NAMED_STRING_FIELDS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  V1PersistentVolumeSpec: { accessModes: 'PersistentVolumeAccessMode', persistentVolumeReclaimPolicy: 'PersistentVolumeReclaimPolicy', volumeMode: 'PersistentVolumeMode' },
  V1PersistentVolumeStatus: { phase: 'PersistentVolumePhase' },
  V1PersistentVolumeClaimSpec: { accessModes: 'PersistentVolumeAccessMode', volumeMode: 'PersistentVolumeMode' },
  V1PersistentVolumeClaimStatus: { phase: 'PersistentVolumeClaimPhase', accessModes: 'PersistentVolumeAccessMode' },
  V1PersistentVolumeClaimCondition: { type: 'PersistentVolumeClaimConditionType', status: 'ConditionStatus' },
  V1HostPathVolumeSource: { type: 'HostPathType' },
  V1NodeSelectorRequirement: { operator: 'NodeSelectorOperator' },
  V1StorageClass: { reclaimPolicy: 'PersistentVolumeReclaimPolicy', volumeBindingMode: 'VolumeBindingMode' },
  V1PodSpec: { restartPolicy: 'RestartPolicy', dnsPolicy: 'DNSPolicy', preemptionPolicy: 'PreemptionPolicy' },
  V1Container: { imagePullPolicy: 'PullPolicy', terminationMessagePolicy: 'TerminationMessagePolicy' },
  V1ContainerPort: { protocol: 'Protocol' },
  V1PodStatus: { phase: 'PodPhase', qosClass: 'PodQOSClass' },
  V1PodCondition: { type: 'PodConditionType', status: 'ConditionStatus' },
  V1NodeCondition: { type: 'NodeConditionType', status: 'ConditionStatus' },
  V1NamespaceStatus: { phase: 'NamespacePhase' },
  V1ServiceSpec: { type: 'ServiceType', sessionAffinity: 'ServiceAffinity', ipFamilies: 'IPFamily', ipFamilyPolicy: 'IPFamilyPolicy' },
  V1ServicePort: { protocol: 'Protocol' },
  V1Toleration: { operator: 'TolerationOperator', effect: 'TaintEffect' },
  V1Taint: { effect: 'TaintEffect' },
};

/**
 * Fields of the Go types of the release we serve that client-node's models predate, per model.
 * CSINode.status (CSIVolumeHealth): its storageHealth list is kept as it comes, since the gate
 * is off in the release we serve and the strategy drops it before anything is stored.
 */
const MISSING_FIELDS: Readonly<Record<string, ReadonlyArray<[string, TypeSchema]>>> = {
  V1CSINode: [['status', {
    kind: 'struct', goType: 'v1.CSINodeStatus', goName: 'CSINodeStatus',
    fields: new Map([['storageHealth', { type: { kind: 'array', items: { kind: 'free' } }, goPath: 'storageHealth' }]]),
  }]],
};

/** The embedded Go struct a field is promoted from, if any. */
function embeddedStructOf(model: string, attr: Attribute): string | undefined {
  if (model === 'V1PersistentVolumeSpec' && attr.type.endsWith('VolumeSource')) return 'PersistentVolumeSource';
  if (model === 'V1Volume' && attr.type.endsWith('VolumeSource')) return 'VolumeSource';
  if (model === 'V1EphemeralContainer' && attr.baseName !== 'targetContainerName') return 'EphemeralContainerCommon';
  return undefined;
}

const MODEL_PREFIX = /^(?:[A-Z][a-z]+)?(V\d+(?:(?:alpha|beta)\d+)?)/;

function modelClass(name: string): ModelClass | undefined {
  const candidate = (models as unknown as Record<string, unknown>)[name];
  if (typeof candidate !== 'function') return undefined;
  const cls = candidate as Partial<ModelClass>;
  return typeof cls.getAttributeTypeMap === 'function' ? (cls as ModelClass) : undefined;
}

const structs = new Map<string, StructSchema>();

function structSchema(model: string): StructSchema {
  const known = structs.get(model);
  if (known) return known;
  const cls = modelClass(model);
  const prefix = MODEL_PREFIX.exec(model);
  if (!cls || !prefix) throw new Error(`@kubernetes/client-node has no model ${model}`);
  const goName = model.slice(prefix[0].length);
  const schema: StructSchema = { kind: 'struct', goType: `${prefix[1].toLowerCase()}.${goName}`, goName, fields: new Map() };
  // Registered before its fields are read, so a model that (indirectly) contains itself ends.
  structs.set(model, schema);
  const quantities = QUANTITY_FIELDS[model] ?? [];
  const named = NAMED_STRING_FIELDS[model] ?? {};
  for (const attr of cls.getAttributeTypeMap()) {
    const embedded = embeddedStructOf(model, attr);
    const goType = Object.hasOwn(named, attr.baseName) ? `v1.${named[attr.baseName]}` : undefined;
    schema.fields.set(attr.baseName, {
      type: typeSchema(attr.type, attr.format, quantities.includes(attr.baseName), goType),
      goPath: embedded ? `${embedded}.${attr.baseName}` : attr.baseName,
    });
  }
  for (const [name, type] of MISSING_FIELDS[model] ?? []) schema.fields.set(name, { type, goPath: name });
  return schema;
}

const ARRAY = /^Array<(.+)>$/;
const MAP = /^\{ \[key: string\]: (.+); \}$/;

function typeSchema(type: string, format: string, quantity: boolean, goType?: string): TypeSchema {
  const array = ARRAY.exec(type);
  if (array) return { kind: 'array', items: typeSchema(array[1], format, quantity, goType) };
  const map = MAP.exec(type);
  if (map) {
    const values = typeSchema(map[1], format, quantity);
    return quantity ? { kind: 'map', values, goType: 'v1.ResourceList' } : { kind: 'map', values };
  }
  switch (type) {
    case 'string':
      if (quantity) return { kind: 'quantity' };
      // A Go []byte: base64 on the wire (Secret data).
      if (format === 'byte') return { kind: 'bytes' };
      return goType === undefined ? { kind: 'string' } : { kind: 'string', goType };
    case 'boolean':
      return { kind: 'bool' };
    case 'number':
      return { kind: format === 'int32' ? 'int32' : format === 'int64' ? 'int64' : 'float64' };
    case 'Date':
      return { kind: format === 'date-time-micro' ? 'microTime' : 'time' };
    case 'V1MicroTime':
      return { kind: 'microTime' };
    case 'IntOrString':
      return { kind: 'intOrString' };
    case 'any':
    case 'object':
      return { kind: 'free' };
    default:
      return structSchema(type);
  }
}

/** client-node's model names for a kind: group-qualified first ("CoreV1Event"), then plain ("V1Pod"). */
function modelNamesFor(group: string, version: string, kind: string): string[] {
  const v = version.charAt(0).toUpperCase() + version.slice(1);
  const groupWord = group === '' ? 'Core' : group.charAt(0).toUpperCase() + group.split('.')[0].slice(1);
  return [`${groupWord}${v}${kind}`, `${v}${kind}`];
}

/** The option and status kinds apimachinery registers in every group version. */
const META_KINDS = new Set(['Status', 'WatchEvent', 'DeleteOptions', 'ListOptions', 'GetOptions', 'CreateOptions', 'UpdateOptions', 'PatchOptions']);

let registered: Map<string, Set<string>> | undefined;

/**
 * Whether kube-apiserver's scheme knows `kind` in a group version (so a body of it decodes, and
 * only its conversion to the endpoint's kind fails): the kinds of the built-in groups that the
 * generator read from client-go's scheme of the release we serve (openapi/definitions.json,
 * `registered`), and the meta kinds every version has.
 */
export function isRegisteredKind(group: string, version: string, kind: string): boolean {
  registered ??= new Map(Object.entries(definitionsFile().registered).map(([gv, kinds]) => [gv, new Set(kinds)]));
  const kinds = registered.get(group === '' ? version : `${group}/${version}`);
  if (kinds === undefined || kind === '') return false;
  return META_KINDS.has(kind) || kinds.has(kind);
}

/** The model of a kind in client-node, if it has one. */
export function modelForKind(group: string, version: string, kind: string): string | undefined {
  return modelNamesFor(group, version, kind).find((name) => modelClass(name) !== undefined);
}

/** metav1.ObjectMeta's schema. */
export function objectMetaSchema(): StructSchema {
  return structSchema('V1ObjectMeta');
}

/**
 * A kind client-node has no model for (a resource a test or an extension serves, a custom
 * resource): typed metadata, and every other field kept as free-form JSON, within the nesting
 * limit (a custom resource is then pruned by its own schema).
 */
function freeFormKind(kind: string): StructSchema {
  const fields = new Map<string, FieldSchema>([
    ['apiVersion', { type: { kind: 'string' }, goPath: 'apiVersion' }],
    ['kind', { type: { kind: 'string' }, goPath: 'kind' }],
    ['metadata', { type: structSchema('V1ObjectMeta'), goPath: 'metadata' }],
  ]);
  return { kind: 'struct', goType: `unstructured.${kind}`, goName: kind, fields, otherFields: { kind: 'free' } };
}

const byKind = new Map<string, StructSchema>();

/** The schema of a served kind: its client-node model, or free-form beyond metadata without one. */
export function schemaForKind(group: string, version: string, kind: string): StructSchema {
  const key = `${group}/${version}/${kind}`;
  let schema = byKind.get(key);
  if (!schema) {
    const model = modelForKind(group, version, kind);
    schema = model ? structSchema(model) : freeFormKind(kind);
    byKind.set(key, schema);
  }
  return schema;
}

/**
 * The schema a resource's bodies decode into: a custom resource is free-form beyond its
 * metadata (its CustomResourceDefinition's schema prunes it), whatever its kind is called.
 */
export function decodeSchemaFor(info: ResourceInfo): StructSchema {
  if (info.custom === undefined) return schemaForKind(info.group, info.version, info.kind);
  const key = `custom/${info.group}/${info.version}/${info.kind}`;
  let schema = byKind.get(key);
  if (!schema) byKind.set(key, (schema = freeFormKind(info.kind)));
  return schema;
}
