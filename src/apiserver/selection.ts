/**
 * Which objects a list or watch selects: label selector, field selector (metadata.name,
 * metadata.namespace and the strategy's own fields) and the namespace of the path.
 */
import { BadRequestError } from '../kube/errors.js';
import {
  fieldNames,
  matchesFieldRequirements,
  matchesLabelRequirements,
  parseFieldSelector,
  parseLabelSelector,
  type FieldRequirement,
  type LabelRequirement,
} from '../kube/selectors.js';
import { goQuote } from '../kube/name-validation.js';
import type { KubeObject } from '../kube/types.js';
import type { ResourceStrategy } from './resources/strategy.js';

export interface Selection {
  namespace?: string;
  labels: LabelRequirement[];
  fields: FieldRequirement[];
}

const supportedFieldCache = new WeakMap<ResourceStrategy, Set<string>>();

/** The field labels a strategy supports, found by asking it for the fields of an empty object. */
function supportedFieldLabels(strategy: ResourceStrategy): Set<string> {
  let labels = supportedFieldCache.get(strategy);
  if (!labels) {
    labels = new Set(['metadata.name', 'metadata.namespace']);
    const probe: KubeObject = { metadata: { name: '', namespace: '' } };
    for (const key of Object.keys(strategy.fields(probe))) labels.add(key);
    supportedFieldCache.set(strategy, labels);
  }
  return labels;
}

/**
 * The Selection of parsed selector requirements; a field label the resource does not have is a
 * 400 in kube-apiserver's words (resources with field labels of their own name the bad one; the
 * others list the two every resource has).
 */
export function selectionFor(
  labels: LabelRequirement[],
  fields: FieldRequirement[],
  strategy: ResourceStrategy,
  namespace: string | undefined,
): Selection {
  const supported = supportedFieldLabels(strategy);
  for (const name of fieldNames(fields)) {
    if (supported.has(name)) continue;
    if (supported.size > 2) throw new BadRequestError(`field label not supported: ${name}`);
    throw new BadRequestError(`${goQuote(name)} is not a known field selector: only "metadata.name", "metadata.namespace"`);
  }
  return { namespace, labels, fields };
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
