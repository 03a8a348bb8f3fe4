/**
 * The structural OpenAPI v3 schema a CustomResourceDefinition version carries
 * (apiextensions.k8s.io/v1 JSONSchemaProps), as far as the server acts on it: types, properties,
 * value limits, defaults, the `x-kubernetes-*` extensions (pruning, int-or-string, embedded
 * resources, list and map merge markers, CEL validation rules).
 */

export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

export interface JSONSchemaProps {
  type?: string;
  format?: string;
  description?: string;
  nullable?: boolean;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  items?: JSONSchemaProps;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  allOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-validations'?: ValidationRule[];
}

/** The schema of an object's field: a named property, else the additionalProperties schema. */
export function propertySchema(schema: JSONSchemaProps | undefined, key: string): JSONSchemaProps | undefined {
  if (schema === undefined) return undefined;
  const prop = schema.properties?.[key];
  if (prop !== undefined && Object.hasOwn(schema.properties ?? {}, key)) return prop;
  return typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
}

export function isObjectValue(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A path below `parent` as apimachinery's field.Path prints it: "spec.source", "spec.list[0]". */
export function childPath(parent: string, key: string): string {
  return parent === '' ? key : `${parent}.${key}`;
}

export function indexPath(parent: string, index: number): string {
  return `${parent}[${index}]`;
}
