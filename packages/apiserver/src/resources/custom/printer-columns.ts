/**
 * A CustomResourceDefinition version's additionalPrinterColumns as the Table columns and cells
 * `kubectl get` shows, as kube-apiserver's CRD table convertor builds them: Name first, then each
 * column's JSONPath looked up in the object (a missing value is an empty cell), string columns
 * printed as kubectl's JSONPath prints, the other types as JSON values, dates as ages.
 */
import type { KubeObject } from '@pv-controller/kube/types.js';
import { isObjectValue } from './json-schema.js';
import { AGE_COLUMN, age, NAME_COLUMN } from '../printing.js';
import type { TableColumn } from '../strategy.js';

export interface PrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

type Step = { field: string } | { index: number };

/** The simple JSONPaths CRDs use: `.a.b`, `.a[0].b`, `.a['b.c']`; undefined for anything else. */
export function parseSimpleJsonPath(path: string): Step[] | undefined {
  const steps: Step[] = [];
  const re = /\.([A-Za-z0-9_$-]+)|\[(\d+)\]|\['([^']*)'\]|\["([^"]*)"\]/y;
  let at = 0;
  while (at < path.length) {
    re.lastIndex = at;
    const m = re.exec(path);
    if (!m) return undefined;
    if (m[1] !== undefined) steps.push({ field: m[1] });
    else if (m[2] !== undefined) steps.push({ index: Number(m[2]) });
    else steps.push({ field: m[3] ?? m[4] });
    at = re.lastIndex;
  }
  return steps;
}

function lookup(obj: unknown, steps: Step[]): unknown {
  let v: unknown = obj;
  for (const step of steps) {
    if ('field' in step) v = isObjectValue(v) && Object.hasOwn(v, step.field) ? v[step.field] : undefined;
    else v = Array.isArray(v) ? v[step.index] : undefined;
    if (v === undefined) return undefined;
  }
  return v;
}

/** How kubectl's JSONPath prints a value into a string column. */
function printed(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function cell(type: string, value: unknown, now: Date): unknown {
  if (value === undefined || value === null) return null;
  switch (type) {
    case 'string': return printed(value);
    case 'integer': return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number': return typeof value === 'number' ? value : null;
    case 'boolean': return typeof value === 'boolean' ? value : null;
    case 'date': return typeof value === 'string' ? (Number.isNaN(Date.parse(value)) ? '<invalid>' : age(value, now)) : null;
    default: return null;
  }
}

export interface PrinterColumns {
  columns: TableColumn[];
  row(obj: KubeObject, now: Date): unknown[];
}

/** serveDefaultColumnsIfEmpty: a version without columns shows its age. */
function withDefaultColumns(defs: readonly PrinterColumn[]): readonly PrinterColumn[] {
  if (defs.length > 0) return defs;
  return [{ name: 'Age', type: 'date', description: AGE_COLUMN.description, jsonPath: '.metadata.creationTimestamp' }];
}

export function printerColumns(columnDefs: readonly PrinterColumn[]): PrinterColumns {
  const defs = withDefaultColumns(columnDefs);
  const paths = defs.map((d) => parseSimpleJsonPath(d.jsonPath));
  const columns: TableColumn[] = [NAME_COLUMN, ...defs.map((d) => ({
    name: d.name,
    type: d.type as TableColumn['type'],
    format: d.format ?? '',
    description: d.description !== undefined && d.description !== '' ? d.description : `Custom resource definition column (in JSONPath format): ${d.jsonPath}`,
    priority: d.priority ?? 0,
  }))];
  return {
    columns,
    row: (obj, now) => [obj.metadata.name ?? '', ...defs.map((d, i) => {
      const steps = paths[i];
      return steps === undefined ? null : cell(d.type, lookup(obj, steps), now);
    })],
  };
}
