/**
 * Parts of ValidatePersistentVolumeSpec / ValidatePersistentVolumeClaimSpec shared by PV and PVC
 * (access modes, positive quantities, node selectors, label selectors) and the PV volume sources.
 */
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from '@pv-controller/kube/name-validation.js';
import { Quantity } from '@pv-controller/kube/quantity.js';
import type { LabelSelector, NodeSelector, StatusCause } from '@pv-controller/kube/types.js';
import { appendCauses, forbidden, invalid, invalidEach, notSupported, required } from '../../api/field-errors.js';
import { validateLabels } from '../object-meta.js';

const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
export const VOLUME_MODES = ['Block', 'Filesystem'];

export function validateAccessModes(modes: unknown, field: string, requiredDetail: string | undefined): StatusCause[] {
  const list = Array.isArray(modes) ? (modes as unknown[]) : [];
  const causes: StatusCause[] = [];
  if (list.length === 0) causes.push(required(field, requiredDetail));
  let rwop = false;
  let others = false;
  // Every cause names the list, not the item: a value repeated is the same cause, which the 422
  // would list once anyway; building it once spares a million empty modes a million messages.
  const reported = new Set<unknown>();
  for (const mode of list) {
    if (typeof mode !== 'string' || !ACCESS_MODES.includes(mode)) {
      if (!reported.has(mode)) causes.push(notSupported(field, mode, ACCESS_MODES));
      reported.add(mode);
    } else if (mode === 'ReadWriteOncePod') rwop = true;
    else others = true;
  }
  if (rwop && others) causes.push(forbidden(field, 'may not use ReadWriteOncePod with other access modes'));
  return causes;
}

/** ValidatePositiveQuantityValue ("must be greater than zero"). Values are canonical by now. */
export function validatePositiveQuantity(value: unknown, field: string): StatusCause[] {
  try {
    const q = Quantity.parse(String(value));
    return q.sign() > 0 ? [] : [invalid(field, q.toString(), 'must be greater than zero')];
  } catch {
    return [invalid(field, value, 'must be a valid resource quantity')];
  }
}

/** validateBasicResource: a quantity must not be negative. */
export function validateNonNegativeQuantity(value: unknown, field: string): StatusCause[] {
  try {
    const q = Quantity.parse(String(value));
    return q.sign() >= 0 ? [] : [invalid(field, q.toBytes(), 'must be a valid resource quantity')];
  } catch {
    return [invalid(field, value, 'must be a valid resource quantity')];
  }
}

/** ValidateClassName (storage class, volume attributes class): a DNS-1123 subdomain. */
export function validateClassName(name: string, field: string): StatusCause[] {
  return invalidEach(field, name, isDNS1123Subdomain(name));
}

interface SelectorRequirementLike {
  key?: unknown;
  operator?: unknown;
  values?: unknown;
}

function validateNodeSelectorRequirement(rq: SelectorRequirementLike, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const values = Array.isArray(rq.values) ? (rq.values as unknown[]) : [];
  switch (rq.operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) causes.push(required(`${field}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) causes.push(forbidden(`${field}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      break;
    case 'Gt':
    case 'Lt':
      if (values.length !== 1) causes.push(required(`${field}.values`, "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      break;
    default:
      causes.push(invalid(`${field}.operator`, rq.operator, 'not a valid selector operator'));
  }
  appendCauses(causes, invalidEach(`${field}.key`, rq.key, isQualifiedName(String(rq.key ?? ''))));
  values.forEach((v, i) => appendCauses(causes, invalidEach(`${field}.values[${i}]`, v, isValidLabelValue(String(v)))));
  return causes;
}

function validateNodeFieldSelectorRequirement(rq: SelectorRequirementLike, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const values = Array.isArray(rq.values) ? (rq.values as unknown[]) : [];
  if (rq.operator === 'In' || rq.operator === 'NotIn') {
    if (values.length !== 1) {
      causes.push(required(`${field}.values`, "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
    }
  } else {
    causes.push(invalid(`${field}.operator`, rq.operator, 'not a valid selector operator'));
  }
  if (rq.key !== 'metadata.name') causes.push(invalid(`${field}.key`, rq.key, 'not a valid field selector key'));
  return causes;
}

/** ValidateNodeSelector (used by PV nodeAffinity.required). */
export function validateNodeSelector(sel: NodeSelector, field: string): StatusCause[] {
  const termsField = `${field}.nodeSelectorTerms`;
  const terms = Array.isArray(sel.nodeSelectorTerms) ? sel.nodeSelectorTerms : [];
  if (terms.length === 0) return [required(termsField, 'must have at least one node selector term')];
  const causes: StatusCause[] = [];
  terms.forEach((term, i) => {
    (term?.matchExpressions ?? []).forEach((rq, j) =>
      appendCauses(causes, validateNodeSelectorRequirement(rq, `${termsField}[${i}].matchExpressions[${j}]`)));
    (term?.matchFields ?? []).forEach((rq, j) =>
      appendCauses(causes, validateNodeFieldSelectorRequirement(rq, `${termsField}[${i}].matchFields[${j}]`)));
  });
  return causes;
}

/** ValidateLabelSelector (PVC spec.selector). */
export function validateLabelSelector(sel: LabelSelector, field: string): StatusCause[] {
  const causes = validateLabels(sel.matchLabels, `${field}.matchLabels`);
  (sel.matchExpressions ?? []).forEach((expr, i) => {
    const at = `${field}.matchExpressions[${i}]`;
    const values = Array.isArray(expr.values) ? expr.values : [];
    if (expr.operator === 'In' || expr.operator === 'NotIn') {
      if (values.length === 0) causes.push(required(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (expr.operator === 'Exists' || expr.operator === 'DoesNotExist') {
      if (values.length > 0) causes.push(forbidden(`${at}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    } else {
      causes.push(invalid(`${at}.operator`, expr.operator, 'not a valid selector operator'));
    }
    appendCauses(causes, invalidEach(`${at}.key`, expr.key, isQualifiedName(String(expr.key ?? ''))));
    values.forEach((v, j) => appendCauses(causes, invalidEach(`${at}.values[${j}]`, v, isValidLabelValue(String(v)))));
  });
  return causes;
}

/** Secret references in CSI sources: name (subdomain) and namespace (label) required. */
export function validateSecretReference(ref: unknown, field: string): StatusCause[] {
  if (ref === undefined || ref === null) return [];
  const r = ref as { name?: unknown; namespace?: unknown };
  const causes: StatusCause[] = [];
  if (!r.name) causes.push(required(`${field}.name`));
  else appendCauses(causes, invalidEach(`${field}.name`, r.name, isDNS1123Subdomain(String(r.name))));
  if (!r.namespace) causes.push(required(`${field}.namespace`));
  else appendCauses(causes, invalidEach(`${field}.namespace`, r.namespace, isDNS1123Label(String(r.namespace))));
  return causes;
}
