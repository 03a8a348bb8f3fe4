/**
 * Which objects a list or watch selects: label selector, field selector (metadata.name,
 * metadata.namespace and the strategy's own fields) and the namespace of the path.
 */
import { BadRequestError } from '@pv-controller/kube/errors.js';
import { matchesLabelRequirements, type LabelRequirement } from '@pv-controller/kube/selectors.js';
import { fieldNames, matchesFieldRequirements, parseFieldSelector, type FieldRequirement } from '../api/field-selectors.js';
import { parseLabelSelector } from '../api/label-selector-parser.js';
import { goQuote } from '@pv-controller/kube/name-validation.js';
import type { KubeObject } from '@pv-controller/kube/types.js';
import type { ResourceStrategy } from '../resources/strategy.js';

export interface Selection {
  namespace?: string;
  labels: LabelRequirement[];
  fields: FieldRequirement[];
}

/** The default field-label conversion: what every kind without one of its own accepts. */
const DEFAULT_FIELD_LABELS: Readonly<Record<string, string>> = {
  'metadata.name': 'metadata.name',
  'metadata.namespace': 'metadata.namespace',
};

/**
 * The Selection of parsed selector requirements, each field label converted as the kind's
 * field-label conversion does (an alias becomes the field it selects on). A label the kind does
 * not accept is a 400 in kube-apiserver's words: its own conversion says "field label not
 * supported", the default one lists the two labels it knows.
 */
export function selectionFor(
  labels: LabelRequirement[],
  fields: FieldRequirement[],
  strategy: ResourceStrategy,
  namespace: string | undefined,
): Selection {
  const accepted = strategy.fieldLabels ?? DEFAULT_FIELD_LABELS;
  for (const name of fieldNames(fields)) {
    if (Object.hasOwn(accepted, name)) continue;
    if (strategy.fieldLabels) throw new BadRequestError(`field label not supported: ${name}`);
    throw new BadRequestError(`${goQuote(name)} is not a known field selector: only "metadata.name", "metadata.namespace"`);
  }
  const converted = fields.map((f) => (accepted[f.field] === f.field ? f : { ...f, field: accepted[f.field] }));
  return { namespace, labels, fields: converted };
}

/** `?labelSelector=` and `?fieldSelector=` of a query, parsed and checked. */
export function parseSelection(
  params: URLSearchParams,
  strategy: ResourceStrategy,
  namespace: string | undefined,
): Selection {
  const labels = parseLabelSelector(params.get('labelSelector') ?? '');
  const fields = parseFieldSelector(params.get('fieldSelector') ?? '');
  return selectionFor(labels, fields, strategy, namespace);
}

export function isSelectAll(sel: Selection): boolean {
  return sel.labels.length === 0 && sel.fields.length === 0;
}

export function selectionMatches(sel: Selection, obj: KubeObject, strategy: ResourceStrategy): boolean {
  const meta = obj.metadata;
  if (sel.namespace !== undefined && meta.namespace !== sel.namespace) return false;
  if (sel.labels.length > 0 && !matchesLabelRequirements(sel.labels, meta.labels)) return false;
  if (sel.fields.length === 0) return true;
  const fields = {
    ...strategy.fields(obj),
    'metadata.name': meta.name ?? '',
    'metadata.namespace': meta.namespace ?? '',
  };
  return matchesFieldRequirements(sel.fields, fields);
}
