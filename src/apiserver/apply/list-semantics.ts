/**
 * How server-side apply merges the lists, maps and structs of the kinds we serve: the
 * x-kubernetes-list-type, -list-map-keys and -map-type markers of the OpenAPI definitions
 * kube-apiserver publishes (openapi/definitions.json), which are also what its field manager
 * builds its type converter from. Structured-merge-diff's defaults hold for everything not
 * marked: a list without a list type is atomic, maps and structs are granular.
 *
 * Keyed by definition name ("io.k8s.api.core.v1.ServiceSpec") and property.
 */
import { definitionsFile, referencedName, type Schema } from '../openapi/definitions.js';

export interface FieldSemantics {
  listType?: 'atomic' | 'set' | 'map';
  listMapKeys?: readonly string[];
  /** For a map or struct field: atomic replaces it whole; granular overrides an atomic type. */
  mapType?: 'atomic' | 'granular';
  /** The definition of the field's value: the struct itself, a list's items or a map's values. */
  definition?: string;
}

/** The lookup the apply engine reads. */
export interface ApplySemantics {
  field(definition: string, field: string): FieldSemantics | undefined;
  /** A struct type whose values are replaced whole (`+structType=atomic`). */
  atomicStruct(definition: string): boolean;
}

function valueDefinition(p: Schema): string | undefined {
  const inner = p.items ?? (typeof p.additionalProperties === 'object' ? p.additionalProperties : undefined);
  return referencedName(p) ?? (inner ? referencedName(inner) : undefined);
}

function semanticsOf(p: Schema): FieldSemantics {
  const listType = p['x-kubernetes-list-type'];
  const keys = p['x-kubernetes-list-map-keys'];
  const mapType = p['x-kubernetes-map-type'];
  return {
    ...(listType === 'atomic' || listType === 'set' || listType === 'map' ? { listType } : {}),
    ...(Array.isArray(keys) ? { listMapKeys: keys as string[] } : {}),
    ...(mapType === 'atomic' || mapType === 'granular' ? { mapType } : {}),
    definition: valueDefinition(p),
  };
}

const byField = new Map<string, FieldSemantics | undefined>();

export const kubernetesApplySemantics: ApplySemantics = {
  field(definition, field) {
    const key = `${definition}#${field}`;
    if (byField.has(key)) return byField.get(key);
    const p = definitionsFile().definitions[definition]?.properties?.[field];
    const out = p === undefined ? undefined : semanticsOf(p);
    byField.set(key, out);
    return out;
  },
  atomicStruct: (definition) => definitionsFile().definitions[definition]?.['x-kubernetes-map-type'] === 'atomic',
};
