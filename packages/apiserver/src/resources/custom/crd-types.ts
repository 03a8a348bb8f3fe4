/** apiextensions.k8s.io/v1 CustomResourceDefinition, as far as the server reads it. */
import type { KubeObject } from '@pv-controller/kube/types.js';
import type { JSONSchemaProps } from './json-schema.js';
import type { PrinterColumn } from './printer-columns.js';

export interface CustomResourceDefinitionNames {
  plural: string;
  singular?: string;
  kind: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

export interface CustomResourceDefinitionVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: JSONSchemaProps };
  subresources?: { status?: Record<string, never>; scale?: Record<string, unknown> };
  additionalPrinterColumns?: PrinterColumn[];
}

export interface CustomResourceDefinitionSpec {
  group: string;
  names: CustomResourceDefinitionNames;
  scope: 'Namespaced' | 'Cluster';
  versions: CustomResourceDefinitionVersion[];
  preserveUnknownFields?: boolean;
  conversion?: { strategy?: string };
}

export interface CustomResourceDefinition extends KubeObject {
  spec: CustomResourceDefinitionSpec;
  status?: Record<string, unknown>;
}
