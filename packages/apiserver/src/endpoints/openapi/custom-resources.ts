/**
 * The OpenAPI definitions of custom resources, as kube-apiserver publishes a CRD version's schema
 * (apiextensions' openapi builder): the kind named by its group reversed
 * ("io.k8s.storage.snapshot.v1.VolumeSnapshot"), its structural schema with apiVersion, kind and
 * a reference to ObjectMeta, the group-version-kind extension, and a List kind beside it. What
 * `kubectl explain` reads, and where kubectl's apply finds the fieldValidation parameter.
 */
import type { Schema } from '../../openapi/definitions.js';
import type { JSONSchemaProps } from '../../resources/custom/json-schema.js';
import type { ResourceInfo } from '../../resources/strategy.js';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';

const API_VERSION = 'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const KIND = 'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';
const METADATA = "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
const LIST_METADATA = 'Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';

type Form = 'v2' | 'v3';

/** "snapshot.storage.k8s.io", "v1", "VolumeSnapshot" → "io.k8s.storage.snapshot.v1.VolumeSnapshot". */
export function publishedName(info: ResourceInfo, kind = info.kind): string {
  return `${info.group.split('.').reverse().join('.')}.${info.version}.${kind}`;
}

function ref(name: string, form: Form): string {
  return form === 'v3' ? `#/components/schemas/${name}` : `#/definitions/${name}`;
}

/** A reference with a description: v3 wraps it in allOf, as kube-openapi does. */
function described(name: string, description: string, form: Form): Schema {
  return form === 'v3' ? { allOf: [{ $ref: ref(name, form) }], description } : { $ref: ref(name, form), description };
}

/** v2 has no nullable and no CEL rules; both forms drop nothing else. Iterative over the author's schema. */
function published(schema: JSONSchemaProps, form: Form): Schema {
  const root = structuredClone(schema) as Record<string, unknown>;
  if (form === 'v3') return root as Schema;
  const stack: Record<string, unknown>[] = [root];
  while (stack.length > 0) {
    const s = stack.pop()!;
    delete s.nullable;
    delete s['x-kubernetes-validations'];
    for (const key of ['items', 'additionalProperties', 'not']) if (typeof s[key] === 'object' && s[key] !== null) stack.push(s[key] as Record<string, unknown>);
    for (const key of ['properties']) if (typeof s[key] === 'object' && s[key] !== null) for (const p of Object.values(s[key] as object)) stack.push(p as Record<string, unknown>);
    for (const key of ['allOf', 'anyOf', 'oneOf']) if (Array.isArray(s[key])) for (const p of s[key] as object[]) stack.push(p as Record<string, unknown>);
  }
  return root as Schema;
}

function objectSchema(info: ResourceInfo, schema: JSONSchemaProps, form: Form): Schema {
  const out = published(schema, form);
  out.properties = {
    ...out.properties,
    apiVersion: { description: API_VERSION, type: 'string' },
    kind: { description: KIND, type: 'string' },
    metadata: described(`${META}.ObjectMeta`, METADATA, form),
  };
  out.type = 'object';
  out['x-kubernetes-group-version-kind'] = [{ group: info.group, kind: info.kind, version: info.version }];
  return out;
}

function listSchema(info: ResourceInfo, form: Form): Schema {
  return {
    description: `${info.kind}List is a list of ${info.kind}`,
    properties: {
      apiVersion: { description: API_VERSION, type: 'string' },
      items: { description: `List of ${info.plural}. More info: https://git.k8s.io/community/contributors/devel/api-conventions.md`, items: { $ref: ref(publishedName(info), form) }, type: 'array' },
      kind: { description: KIND, type: 'string' },
      metadata: described(`${META}.ListMeta`, LIST_METADATA, form),
    },
    required: ['items'],
    type: 'object',
    'x-kubernetes-group-version-kind': [{ group: info.group, kind: info.listKind, version: info.version }],
  };
}

/** The definitions of the custom resources among `resources`, by published name. */
export function customResourceDefinitions(resources: readonly ResourceInfo[], form: Form): Record<string, Schema> {
  const out: Record<string, Schema> = {};
  for (const info of resources) {
    if (info.custom === undefined) continue;
    out[publishedName(info)] = objectSchema(info, info.custom.schema, form);
    out[publishedName(info, info.listKind)] = listSchema(info, form);
  }
  return out;
}
