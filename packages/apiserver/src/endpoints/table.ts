/**
 * Server-side printing: `Accept: application/json;as=Table;v=v1;g=meta.k8s.io` gets a
 * meta.k8s.io Table built from the strategy's columns, as `kubectl get` expects.
 */
import { NotAcceptableError } from '../api/accept.js';
import type { KubeObject } from '@pv-controller/kube/types.js';
import type { ResourceStrategy } from '../resources/strategy.js';

type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface TableForm {
  /** meta.k8s.io version the client asked for (v1 or v1beta1). */
  version: string;
  includeObject: IncludeObject;
}

export function parseIncludeObject(value: string | null): IncludeObject {
  if (value === null || value === '' || value === 'Metadata') return 'Metadata';
  if (value === 'None' || value === 'Object') return value;
  throw new NotAcceptableError(`includeObject: unsupported value "${value}"`);
}

/** A row's object: none is a null RawExtension, which serialises as `"object": null`. */
function rowObject(obj: KubeObject, form: TableForm): unknown {
  if (form.includeObject === 'None') return null;
  if (form.includeObject === 'Object') return obj;
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${form.version}`, metadata: obj.metadata };
}

interface TableRow {
  cells: unknown[];
  object?: unknown;
}

function tableRows(s: ResourceStrategy, objects: KubeObject[], form: TableForm, now: Date): TableRow[] {
  return objects.map((obj) => {
    const row: TableRow = { cells: s.tableRow(obj, now) };
    row.object = rowObject(obj, form);
    return row;
  });
}

export function buildTable(
  s: ResourceStrategy,
  objects: KubeObject[],
  form: TableForm,
  listMeta: { resourceVersion?: string; continue?: string; remainingItemCount?: number },
  now: Date,
): Record<string, unknown> {
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${form.version}`,
    metadata: listMeta,
    columnDefinitions: s.tableColumns,
    rows: tableRows(s, objects, form, now),
  };
}
